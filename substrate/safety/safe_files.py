"""Atomic, drift-aware file writes and bounded reads: how this service writes
any file, and how it reads one.

A write goes to a temp file in the target's folder, is fsynced, then renamed
over the target, so a reader or a crash sees either the old or the new file,
never a half-written one. A write that was planned from an earlier read passes
the `FileSnapshot` of that read; if the file's content changed since, the
write is refused with `StaleWriteError` and the newer file is left intact.

Closing the window between the drift check and the rename without ever
leaving the target missing: the new file is *exchanged* with the current one
(`renameat2(RENAME_EXCHANGE)`, one atomic step: readers see the old file or the
new one, never neither), then the file it displaced is checked against the
plan. If an editor saved meanwhile, the two are exchanged back, so the
editor's file wins and the write refuses. Nothing a reader does can make a
writer fail. A filesystem without the exchange gets the plain check-then-
rename (a window of microseconds instead of none). A kill at any point leaves
the target old or new, plus at most a temp file of our naming, which
`sweep_stale_temps` removes once no live writer can own it.

Every read goes through `read_regular_file`: the file is opened without
blocking and without following a final symbolic link, checked to be a
regular file (a FIFO at `config.toml` would hang a plain read forever, a link
to `/dev/zero` would read without end) and read to a cap.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import random
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from substrate.errors import InvalidInputError, NotRegularFileError, StaleWriteError, TooLargeError
from substrate.safety.aside import aside_target, restore_aside
from substrate.safety.fencing import fenced
from substrate.safety.inputs import printable
from substrate.safety.patterns import short

# What a read of a workspace file may hold at most unless its caller says less:
# far over any file we write (pages are capped at 8 MiB, the buffer at its facts).
MAX_FILE_BYTES = 64 * 1024 * 1024


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


def snapshot_bytes(path: Path, data: bytes | None, mtime_ns: int = 0) -> FileSnapshot:
    """The snapshot of `data`, just read from `path` (None: the file was absent)."""
    if data is None:
        return FileSnapshot(path, None, 0, 0)
    return FileSnapshot(path, hashlib.sha256(data).hexdigest(), mtime_ns, len(data))


def read_bytes_snapshot(path: Path, cap: int = MAX_FILE_BYTES) -> tuple[bytes | None, FileSnapshot]:
    """Read a file (None when absent) together with the snapshot to write against."""
    try:
        data, mtime_ns = _read_regular(path, cap)
    except FileNotFoundError:
        return None, snapshot_bytes(path, None)
    return data, snapshot_bytes(path, data, mtime_ns)


def read_text_snapshot(path: Path, cap: int = MAX_FILE_BYTES) -> tuple[str, FileSnapshot]:
    """Read a UTF-8 file ('' when absent), keeping line endings exactly as stored."""
    data, snap = read_bytes_snapshot(path, cap)
    return ("" if data is None else data.decode("utf-8")), snap


def read_text_file(path: Path, cap: int = MAX_FILE_BYTES) -> str | None:
    """A UTF-8 file's text, or None when it is absent."""
    try:
        return read_regular_file(path, cap).decode("utf-8")
    except FileNotFoundError:
        return None


STALE_TEMP_S = 300.0
MAX_NAME_CHARS = 1024  # a file name (255 bytes on most filesystems)
# mkstemp's names: our prefix `.<target name>.`, 8 random characters, `.tmp`;
# an earlier release's aside copy of a swap is `.<name>.<16 hex>.old.tmp`.
_TEMP_NAME = short(r"^\..+\.(?:[a-z0-9_]{8}|[0-9a-f]{16}\.old)\.tmp$", MAX_NAME_CHARS)
_NAME_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_NAMES = random.SystemRandom()
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK}
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV, errno.EPERM}
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)
_renameat2 = getattr(_libc, "renameat2", None)


def _current_hash(path: Path) -> str | None:
    try:
        data, _ = _read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None
    except (NotRegularFileError, TooLargeError):
        return "not-a-regular-file"
    return hashlib.sha256(data).hexdigest()


def check_unchanged(expected: FileSnapshot) -> None:
    """Raise `StaleWriteError` if the file no longer holds what `expected` saw."""
    check_same(expected, _current_hash(expected.path))


def check_same(expected: FileSnapshot, current: str | None) -> None:
    """Raise `StaleWriteError` unless `current` (a hash just read, None: absent)
    is what `expected` saw."""
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
    tmp = _write_temp(path, payload, durable=durable)
    try:
        with fenced(path):
            _install(tmp, path, expected, hashlib.sha256(payload).hexdigest())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the filesystem cannot."""
    if _renameat2 is None:
        return False
    rc = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in _NO_EXCHANGE:
        return False
    raise OSError(err, os.strerror(err), str(b))


def _install(tmp: Path, path: Path, expected: FileSnapshot | None, ours: str) -> None:
    """Put `tmp` (whose hash is `ours`) at `path`; with `expected`, only if `path`
    still holds what it saw. On return `tmp` no longer exists (or holds nothing
    anyone needs)."""
    if expected is None:
        os.replace(tmp, path)
        return
    check_unchanged(expected)
    if expected.sha256 is None:
        if not _link(tmp, path):
            raise StaleWriteError(f"{path}: created on disk by someone else since it was read")
        tmp.unlink()
        return
    try:
        swapped = exchange(tmp, path)
    except FileNotFoundError:
        raise StaleWriteError(f"{path}: deleted on disk since it was read") from None
    if not swapped:
        check_unchanged(expected)  # no exchange here: the narrowest window there is
        os.replace(tmp, path)
        return
    if _current_hash(tmp) == expected.sha256:
        tmp.unlink()  # the version the plan saw: replaced, as planned
        return
    _swap_back(tmp, path, ours)
    raise StaleWriteError(f"{path}: changed on disk since it was read; kept the newer file")


def _swap_back(tmp: Path, path: Path, ours: str | None) -> None:
    """An editor saved between the drift check and the exchange (its file is now
    at `tmp`): put it back at `path`. Should a second save have landed over ours
    meanwhile, that newer one is what stays."""
    exchange(tmp, path)
    if _current_hash(tmp) != ours:
        exchange(tmp, path)
    tmp.unlink(missing_ok=True)


def _link(tmp: Path, path: Path) -> bool:
    """Hard-link `tmp` to `path`, never clobbering; False when `path` exists. Where
    the filesystem has no hard links, fall back to a rename when `path` is absent."""
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
    if path.exists():
        return False
    os.replace(tmp, path)
    return True


def sweep_stale_temps(folders: Iterable[Path], older_than_s: float = STALE_TEMP_S) -> int:
    """Remove our own temp files older than `older_than_s` (left by a killed writer)
    from these folders (not their subfolders); returns how many. An earlier
    release's swap left the only copy of a file aside when killed: such a copy
    is put back, never swept."""
    cutoff = time.time() - older_than_s
    removed = 0
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if len(entry.name) > MAX_NAME_CHARS or not _TEMP_NAME.match(entry.name):
                continue
            target = aside_target(entry.name)
            if target is not None and restore_aside(Path(entry.path), Path(folder, target)):
                continue
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
    durable, then each is drift-checked and installed, then each folder is
    fsynced once. The result holds each write's error (`OSError` or
    `StaleWriteError`), or None where it landed; one failure never stops the
    rest. A crash at any point leaves each target either old or new."""
    errors: list[Exception | None] = [None] * len(writes)
    temps: dict[int, Path] = {}
    try:
        for i, write in enumerate(writes):
            try:
                temps[i] = _write_temp(write.path, write.data, durable=False)
            except OSError as exc:
                errors[i] = exc
        os.sync()
        folders: set[Path] = set()
        for i, tmp in list(temps.items()):
            write = writes[i]
            try:
                digest = hashlib.sha256(write.data).hexdigest()
                with fenced(write.path):
                    _install(tmp, write.path, write.expected, digest)
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


def _write_temp(path: Path, data: bytes, *, durable: bool) -> Path:
    """`data` in a new temp file beside `path` (named as `_TEMP_NAME` expects).
    Plain descriptor calls, each its own system call: under load every call gives
    up the interpreter lock and waits to take it back, so the few a write needs
    are the ones it makes."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for attempt in range(100):
        tmp = path.parent / f".{path.name}.{''.join(_NAMES.choices(_NAME_LETTERS, k=8))}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
        except FileNotFoundError:
            if attempt:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
    else:
        raise FileExistsError(errno.EEXIST, "no unused temp file name", str(path.parent))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return tmp


def append_bytes(path: Path, data: bytes, *, durable: bool = True) -> int:
    """Append `data` to a regular file (made when absent); returns the size it had.
    One `write` on an `O_APPEND` descriptor: concurrent appenders never interleave
    inside each other's records, and a kill leaves at most a torn last record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFileError(
                f"{printable(str(path))}: a symbolic link (not followed)"
            ) from None
        if exc.errno == errno.EISDIR:
            raise NotRegularFileError(
                f"{printable(str(path))}: not a regular file (a folder)"
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file ({_kind(st)})")
        view = memoryview(data)
        with fenced(path):
            while view:
                view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    return st.st_size


def last_byte(path: Path) -> bytes | None:
    """A regular file's last byte; None when it is absent or empty (the size and
    one byte read, whatever the file weighs)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFileError(
                f"{printable(str(path))}: a symbolic link (not followed)"
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file ({_kind(st)})")
        return os.pread(fd, 1, st.st_size - 1) if st.st_size else None
    finally:
        os.close(fd)


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
    """A regular file's bytes, at most `cap` of them, or an error saying why not
    (`FileNotFoundError` when it is absent)."""
    return _read_regular(path, cap)[0]


def read_file_at(path: Path, cap: int, offset: int = 0) -> tuple[bytes, int, int]:
    """(the bytes from `offset` on, the file's inode, its size), checked like every
    read: for a journal read where the last reader stopped."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFileError(f"{printable(str(path))}: a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file ({_kind(st)})")
        if st.st_size - offset > cap:
            raise TooLargeError(f"{printable(str(path))}: over the cap of {cap} bytes")
        os.set_blocking(fd, True)
        data = os.pread(fd, max(0, st.st_size - offset), offset)
    finally:
        os.close(fd)
    return data, st.st_ino, st.st_size


def _read_regular(path: Path, cap: int) -> tuple[bytes, int]:
    """(the bytes, the mtime) of a regular file, checked on the open file itself.

    Opened non-blocking (a FIFO would block a plain open or read forever) and
    without following a final symbolic link (a link may point anywhere: out of
    the workspace, at a device). At most `cap + 1` bytes are read, so a file
    that grows while it is read is refused rather than loaded whole."""
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
        | getattr(os, "O_NOFOLLOW", 0)
    )
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFileError(
                f"{printable(str(path))}: a symbolic link (not followed: it could point "
                "out of the workspace)"
            ) from None
        if exc.errno in (errno.ENXIO, errno.ENODEV):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{printable(str(path))}: not a regular file ({_kind(st)})")
        if st.st_size > cap:
            raise TooLargeError(
                f"{printable(str(path))}: {st.st_size} bytes, over the cap of {cap}"
            )
        # O_NONBLOCK means nothing to a regular file, and a short read of one is
        # its end: a small file costs one read, not two.
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            wanted = min(left, 1 << 20)
            chunk = os.read(fd, wanted)
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunk) < wanted:
                break
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise TooLargeError(f"{printable(str(path))}: over the cap of {cap} bytes")
    return data, st.st_mtime_ns


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


def unlinked_folder(root: Path, folder: Path) -> Path:
    """`folder` when no folder from `root` (excluded) down to it is a symbolic
    link: a write into a linked `memory/trash/` or `memory/archive/` would land
    wherever the link points, out of the workspace. `root` itself may be a link
    (a memory folder kept elsewhere on purpose)."""
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        raise InvalidInputError(
            f"{printable(str(folder))} is not under {printable(str(root))}"
        ) from None
    at = root
    for part in parts:
        at = at / part
        if at.is_symlink():
            raise InvalidInputError(
                f"{printable(str(at))} is a symbolic link: memory/ is written only through "
                "real folders (a link could point out of the workspace)"
            )
    return folder


def silence_stdout() -> None:
    """Point this process's stdout at /dev/null: a command whose reader closed the
    pipe (`memory pages | head`) ends quietly, and the interpreter's last flush
    of stdout, into that closed pipe, would print a traceback after all."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
