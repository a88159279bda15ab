"""Atomic, drift-aware file writes: the only way this service writes a file.

A write goes to a temp file in the target's folder, is fsynced, then renamed
over the target, so a reader or a crash sees either the old or the new file,
never a half-written one. A write that was planned from an earlier read passes
the `FileSnapshot` of that read; if the file's content changed since, the
write is refused with `StaleWriteError` and the newer file is left intact.

Temp files start with a dot and end in `.tmp`, so page scans (which read only
`*.md` and skip dotfiles) never pick them up.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from substrate.errors import StaleWriteError


@dataclass(frozen=True)
class FileSnapshot:
    """What a file held when it was read; `sha256` is None for an absent file."""

    path: Path
    sha256: str | None
    mtime_ns: int
    size: int

    @property
    def exists(self) -> bool:
        return self.sha256 is not None


def snapshot_bytes(path: Path, data: bytes | None) -> FileSnapshot:
    """The snapshot of `data`, just read from `path` (None: the file was absent)."""
    if data is None:
        return FileSnapshot(path, None, 0, 0)
    st = path.stat()
    return FileSnapshot(path, hashlib.sha256(data).hexdigest(), st.st_mtime_ns, st.st_size)


def read_bytes_snapshot(path: Path) -> tuple[bytes | None, FileSnapshot]:
    """Read a file (None when absent) together with the snapshot to write against."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    return data, snapshot_bytes(path, data)


def read_text_snapshot(path: Path) -> tuple[str, FileSnapshot]:
    """Read a UTF-8 file ('' when absent), keeping line endings exactly as stored."""
    data, snap = read_bytes_snapshot(path)
    return ("" if data is None else data.decode("utf-8")), snap


def _current_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def check_unchanged(expected: FileSnapshot) -> None:
    """Raise `StaleWriteError` if the file no longer holds what `expected` saw."""
    current = _current_hash(expected.path)
    if current == expected.sha256:
        return
    if expected.sha256 is None:
        raise StaleWriteError(f"{expected.path}: created on disk by someone else since it was read")
    if current is None:
        raise StaleWriteError(f"{expected.path}: deleted on disk since it was read")
    raise StaleWriteError(
        f"{expected.path}: changed on disk since it was read; kept the newer file"
    )


def write_atomic(
    path: Path, data: bytes | str, expected: FileSnapshot | None = None, *, durable: bool = True
) -> None:
    """Replace `path` with `data` atomically; refuse if it drifted from `expected`.

    `durable=False` skips the fsyncs: readers still see the old file or the new
    one, never a mix, and a killed process loses nothing, but an OS crash may
    lose the write. Only for derived state rewritten on every turn."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if expected is not None:
            check_unchanged(expected)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


@dataclass(frozen=True)
class PlannedWrite:
    path: Path
    data: bytes
    expected: FileSnapshot | None


def write_many_atomic(writes: list[PlannedWrite]) -> list[Exception | None]:
    """`write_atomic` for a batch, with one `sync()` instead of an fsync per file.

    Every temp file is written, then one system-wide sync makes them all
    durable, then each is drift-checked and renamed, then each folder is
    fsynced once. The result holds each write's error (`OSError` or
    `StaleWriteError`), or None where it landed; one failure never stops the
    rest. A crash at any point leaves each target either old or new."""
    errors: list[Exception | None] = [None] * len(writes)
    temps: dict[int, Path] = {}
    try:
        for i, write in enumerate(writes):
            try:
                temps[i] = _write_temp(write.path, write.data)
            except OSError as exc:
                errors[i] = exc
        os.sync()
        folders: set[Path] = set()
        for i, tmp in list(temps.items()):
            write = writes[i]
            try:
                if write.expected is not None:
                    check_unchanged(write.expected)
                os.replace(tmp, write.path)
            except (OSError, StaleWriteError) as exc:
                errors[i] = exc
                continue
            del temps[i]
            folders.add(write.path.parent)
        for folder in folders:
            fsync_dir(folder)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
    return errors


def _write_temp(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return Path(tmp_name)


def fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
