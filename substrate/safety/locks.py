"""Advisory inter-process locks on files under `.substrate/`.

Writers that must not interleave (buffer appends; later ingest and
consolidation, which share the consolidation lock) hold one of these. The lock
is an `flock` on a lock file, so it disappears with the process that held it:
a crashed writer never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from substrate.errors import LockHeldError

_THREAD_LOCKS: dict[str, threading.RLock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


def _thread_lock(path: Path) -> threading.RLock:
    with _THREAD_LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(os.path.abspath(path), threading.RLock())


@contextmanager
def hold_lock(
    path: Path, *, timeout_s: float = 10.0, purpose: str = "write", make_folder: bool = True
) -> Iterator[None]:
    """Hold the lock at `path`, waiting up to `timeout_s` for another process;
    without `make_folder` a missing folder is `FileNotFoundError`, never made
    (a lock must not bring back a folder that was removed).

    Threads of this process queue on an in-process lock first and only one
    of them polls the file lock: 32 service threads polling it would starve
    each other past the timeout, though every holder is quick."""
    with _thread_lock(path), _file_lock(path, timeout_s, purpose, make_folder):
        yield


@contextmanager
def _file_lock(path: Path, timeout_s: float, purpose: str, make_folder: bool) -> Iterator[None]:
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockHeldError(
                        f"{path.name}: another process holds the {purpose} lock; "
                        f"retry when it has finished"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
