"""Room on the disk, checked before the first write of an operation.

An operation that writes several files (a page and its log row, a move and
its links, an import and its capture) must not stop half way on a full
disk and then answer with an error as if nothing happened. So it asks
first, for the room the whole operation needs, and a full disk refuses it
before anything changes. (What still fails later, such as the index
catching up, is reported by the operation as done-but-behind.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from substrate.errors import DiskFullError

MIB = 1024 * 1024
# What a multi-file change of memory/ writes at most, with room to spare: a
# page, its neighbours' links, a log row, a journal.
WRITE_ROOM = 4 * MIB


def free_bytes(folder: Path) -> int | None:
    """Free bytes on the disk holding `folder` (its nearest existing parent);
    None when that cannot be told."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def require_room(folder: Path, needed: int, what: str) -> None:
    """Refuse `what` with one clear error, before it writes anything, when the
    disk holding `folder` has less than `needed` bytes free."""
    free = free_bytes(folder)
    if free is not None and free < needed:
        raise DiskFullError(
            f"only {free // MIB} MiB free on the disk holding {folder}; {what} needs at least "
            f"{max(1, needed // MIB)} MiB: nothing was changed; free some space"
        )
