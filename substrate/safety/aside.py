"""Putting back a file a killed writer had moved aside.

A drift-aware swap (`safe_files._install`) renames the current file to
`.<name>.<16 hex>.old.tmp`, checks it, then links the new file in. A kill
between that rename and the link leaves no file at the target at all: the
only copy of the page (or the buffer) is the hidden aside. Every reader that
finds a file missing, and every folder listing, therefore puts such an aside
back first, so the crash reads as "the write did not happen".

A live writer caught in that window loses the race harmlessly: its no-clobber
link fails because the old file is back, and it refuses with `StaleWriteError`
(the planned write did not land; whatever it was filing stays where it was).
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

_ASIDE = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{16}\.old\.tmp$")
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK}


def aside_target(name: str) -> str | None:
    """The file name an aside copy belongs to, or None when `name` is not one."""
    match = _ASIDE.match(name)
    return match.group("name") if match else None


def restore_aside(aside: Path, target: Path) -> bool:
    """Link `aside` back to `target` unless something is there now; True when put back.
    The aside goes only once the link landed, so a writer that linked its own
    file first keeps its aside for its own final check."""
    try:
        os.link(aside, target)
    except (FileExistsError, FileNotFoundError):
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINKS or target.exists():
            return False
        try:
            os.rename(aside, target)
        except FileNotFoundError:
            return False
        return True
    aside.unlink(missing_ok=True)
    return True


def restore_missing(path: Path) -> bool:
    """Put back an aside of `path` when `path` is missing; True when one was."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return False
    for name in sorted(names, reverse=True):
        if aside_target(name) == path.name and restore_aside(path.parent / name, path):
            return True
    return False


def restore_in_folder(folder: str, names: set[str]) -> bool:
    """Put back every aside in `folder` (whose items are `names`) that lacks its
    file; True when any was, so the caller lists the folder again."""
    restored = False
    for name in names:
        target = aside_target(name)
        if target is not None and target not in names:
            restored |= restore_aside(Path(folder, name), Path(folder, target))
    return restored
