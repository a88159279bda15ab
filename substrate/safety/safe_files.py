"""Atomic, drift-aware file writes: the only way this service writes a file.

A write goes to a temp file in the target's folder, is fsynced, then renamed
over the target, so a reader or a crash sees either the old or the new file,
never a half-written one. A write that was planned from an earlier read passes
the `FileSnapshot` of that read; if the file's content changed since, the
write is refused with `StaleWriteError` and the newer file is left intact.

Temp files start with a dot and end in `.tmp`, so page scans (which read only
`*.md` and skip dotfiles) never pick them up; a process killed mid-write
leaves one behind, and `sweep_stale_temps` removes those of our own naming
once they are old enough that no live writer can own them.

Closing the window between the drift check and the rename: a write planned
from a snapshot moves the current file aside (one atomic rename takes
whatever is there now), checks that what it moved is still what the plan
saw, then installs the new file with a hard link, which fails rather than
clobber a file an editor saved meanwhile, and checks the moved file once more
for an in-place edit made during the swap. Any mismatch puts the edited file
back and refuses with `StaleWriteError`. A kill between the move and the link
leaves only the aside; readers and listings put it back (see `aside`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from substrate.errors import NotRegularFileError, StaleWriteError, TooLargeError
from substrate.safety.aside import aside_target, restore_aside, restore_missing
from substrate.safety.inputs import printable


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
    data: bytes | None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = path.read_bytes() if restore_missing(path) else None
    return data, snapshot_bytes(path, data)


def read_text_snapshot(path: Path) -> tuple[str, FileSnapshot]:
    """Read a UTF-8 file ('' when absent), keeping line endings exactly as stored."""
    data, snap = read_bytes_snapshot(path)
    return ("" if data is None else data.decode("utf-8")), snap


STALE_TEMP_S = 300.0
# mkstemp's names: our prefix `.<target name>.`, 8 random characters, `.tmp`;
# the aside copy of a swap is `.<name>.<16 hex>.old.tmp`.
_TEMP_NAME = re.compile(r"^\..+\.(?:[a-z0-9_]{8}|[0-9a-f]{16}\.old)\.tmp$")
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK}


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
        _install(tmp, path, expected)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def _install(tmp: Path, path: Path, expected: FileSnapshot | None) -> None:
    """Put `tmp` at `path`; with `expected`, only if `path` still holds what it saw."""
    if expected is None:
        os.replace(tmp, path)
        return
    check_unchanged(expected)
    if expected.sha256 is None:
        if not _link(tmp, path, replace_unsupported=False):
            raise StaleWriteError(f"{path}: created on disk by someone else since it was read")
        tmp.unlink()
        return
    aside = path.with_name(f".{path.name}.{secrets.token_hex(8)}.old.tmp")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise StaleWriteError(f"{path}: deleted on disk since it was read") from None
    if _current_hash(aside) != expected.sha256:
        _put_back(aside, path)
        raise StaleWriteError(f"{path}: changed on disk since it was read; kept the newer file")
    if not _link(tmp, path, replace_unsupported=True):
        # an editor saved a new file meanwhile, or a reader put the old one back
        # (see `aside`): what is there now wins
        aside.unlink(missing_ok=True)
        raise StaleWriteError(f"{path}: changed on disk since it was read; kept the newer file")
    if _current_hash(aside) != expected.sha256:
        os.replace(aside, path)  # edited in place during the swap: the edit wins
        raise StaleWriteError(f"{path}: changed on disk since it was read; kept the newer file")
    aside.unlink()
    tmp.unlink(missing_ok=True)


def _link(tmp: Path, path: Path, *, replace_unsupported: bool) -> bool:
    """Hard-link `tmp` to `path`, never clobbering; False when `path` exists. Where
    the filesystem has no hard links, fall back to a rename (which clobbers only
    when `replace_unsupported`, else refuses if `path` exists)."""
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
    if not replace_unsupported and path.exists():
        return False
    os.replace(tmp, path)
    return True


def _put_back(aside: Path, path: Path) -> None:
    """Return a moved-aside file to `path`, unless a newer one was saved there."""
    restore_aside(aside, path)
    aside.unlink(missing_ok=True)


def sweep_stale_temps(folders: Iterable[Path], older_than_s: float = STALE_TEMP_S) -> int:
    """Remove our own temp files older than `older_than_s` (left by a killed writer)
    from these folders (not their subfolders); returns how many."""
    cutoff = time.time() - older_than_s
    removed = 0
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not _TEMP_NAME.match(entry.name):
                continue
            target = aside_target(entry.name)
            if target is not None and restore_aside(Path(entry.path), Path(folder, target)):
                continue  # a killed swap's only copy: put back, never swept
            try:
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    return removed


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
                _install(tmp, write.path, write.expected)
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


def read_regular_file(path: Path, cap: int) -> bytes:
    """A regular file's bytes, at most `cap` of them, or an error saying why not.

    Checked on the open file itself, before reading: a FIFO named `x.md` would
    block a plain read forever (and opening it does not block here), a link to
    `/dev/zero` would read without end. At most `cap + 1` bytes are read, so a
    file that grows while it is read is refused rather than loaded whole."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if not restore_missing(path):
            raise
        fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file ({_kind(st)})")
        if st.st_size > cap:
            raise TooLargeError(
                f"{printable(str(path))}: {st.st_size} bytes, over the cap of {cap}"
            )
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise TooLargeError(f"{printable(str(path))}: over the cap of {cap} bytes")
    return data


def _kind(st: os.stat_result) -> str:
    mode = st.st_mode
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a plain file"
