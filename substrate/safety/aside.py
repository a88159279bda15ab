"""Putting back a file an earlier release's killed writer had moved aside.

That release's drift-aware swap renamed the current file to
`.<name>.<16 hex>.old.tmp` before linking the new one in, so a kill between
the two left the only copy of a page (or the buffer) at that hidden name.
Today's swap exchanges the two files in one step and never leaves the target
missing; the sweep of stale temp files still puts such a leftover back, so a
workspace upgraded after a crash loses nothing. Readers no longer restore
anything: a reader that did raced live writers into refusing their writes.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from substrate.safety.patterns import short

_ASIDE = short(r"^\.(?P<name>.+)\.[0-9a-f]{16}\.old\.tmp$", 1024)
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK}


def aside_target(name: str) -> str | None:
    """The file name an aside copy belongs to, or None when `name` is not one."""
    if len(name) > _ASIDE.max_chars:
        return None
    match = _ASIDE.match(name)
    return match.group("name") if match else None


def restore_aside(aside: Path, target: Path) -> bool:
    """Link `aside` back to `target` unless something is there now; True when put back."""
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
