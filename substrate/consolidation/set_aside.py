"""Facts a filing run could not file, set aside so the rest are filed.

One fact whose filing fails (a hint naming a path the file system refuses, a
page it would write that cannot be written) used to fail every run: the
whole buffer waited behind it and each retry failed the same way. A run
that fails is tried again one fact at a time (`file_one_at_a_time`); a fact
whose own run fails is held in the buffer under the rule `set_aside` and
its reason kept in `.substrate/set-aside.json` (id -> why, when: no words),
and the next facts are filed. `memory doctor` names each one
(`set_aside_fact`) with its fix; `memory release ID` tries it again, and a
forget takes it out.

A failure that is not the fact's own (a full or read-only disk, a held
lock, a store that cannot be reached, a disabled memory) is raised as it
was: setting facts aside for it would set aside every fact.
"""

from __future__ import annotations

import errno
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.outcome import ConsolidationOutcome
from substrate.errors import (
    ConfigError,
    LockHeldError,
    MemoryDisabledError,
    MemoryServiceError,
    StoreUnavailableError,
    TransientError,
)
from substrate.intake import BufferEntry, hold_entries, read_buffer
from substrate.safety import read_text_file, write_atomic

RULE = "set_aside"
# What a file system says of a name or a path, not of itself (full, read-only,
# failing): a fact whose page it would write gets these for its own reasons.
NAME_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR, errno.EINVAL, errno.ELOOP, errno.EILSEQ}
)
WHY_CHARS = 300


def set_aside_path(settings: Settings) -> Path:
    return settings.workspace.state_dir / "set-aside.json"


def facts_fault(exc: BaseException) -> bool:
    """Whether a failure may be the fact's own (see the module doc): a name or a
    path the file system refuses for this fact, bad input met while filing it."""
    if isinstance(exc, OSError):
        return exc.errno in NAME_ERRNOS
    passing = (
        LockHeldError,
        StoreUnavailableError,
        MemoryDisabledError,
        ConfigError,
        TransientError,
    )
    if isinstance(exc, passing):
        return False
    return isinstance(exc, MemoryServiceError | ValueError | RecursionError)


def file_one_at_a_time(
    settings: Settings,
    left: int | None,
    run_one: Callable[[], ConsolidationOutcome],
) -> ConsolidationOutcome:
    """Runs of one fact each until `left` are taken or none is left; a fact whose
    run fails on its own account is set aside and the next one filed."""
    total = ConsolidationOutcome()
    tried: set[str] = set()
    while left is None or total.consumed < left:
        entry = _next(settings)
        if entry is None or entry.id in tried:
            break
        tried.add(entry.id)
        try:
            run = run_one()
        except Exception as exc:
            if not facts_fault(exc):
                raise
            set_aside(settings, entry, exc)
            total.set_aside.append(entry.id)
            continue
        total.merge(run)
        if run.consumed == 0:
            break
    return total


def set_aside(settings: Settings, entry: BufferEntry, exc: BaseException) -> None:
    why = exc.message if isinstance(exc, MemoryServiceError) else f"{type(exc).__name__}: {exc}"
    reasons = set_aside_reasons(settings)
    reasons[entry.id] = {"why": why[:WHY_CHARS], "at": time.time()}
    write_atomic(set_aside_path(settings), json.dumps(reasons, indent=1))
    hold_entries(settings, {entry.id: RULE})


def set_aside_reasons(settings: Settings) -> dict[str, dict[str, Any]]:
    """id -> {why, at} of the facts set aside (a fact forgotten since may remain
    here until the next set-aside rewrites it: it holds no words)."""
    try:
        text = read_text_file(set_aside_path(settings), 1024 * 1024)
        found = json.loads(text or "{}")
    except (OSError, ValueError, MemoryServiceError):
        return {}
    return found if isinstance(found, dict) else {}


def _next(settings: Settings) -> BufferEntry | None:
    """The fact a run of one would take: the first not held for review."""
    return next((e for e in read_buffer(settings) if not e.held), None)
