"""Who holds a lease: a process named by its pid and its start time.

A pid alone is not an identity: after a crash the number may be given to an
unrelated process, and a lease that trusted it would wait out its whole term.
The start time (`/proc/<pid>/stat`, field 22, in clock ticks since boot)
tells the two apart. Where /proc is not there, the pid alone is used.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from substrate import InvalidInputError
from substrate.safety import read_text_file

STAT_BYTES = 4096


def start_time(pid: int) -> str | None:
    """The process's start time as the kernel counts it, or None when the process
    is gone (or the platform has no /proc)."""
    try:
        stat = read_text_file(Path(f"/proc/{pid}/stat"), STAT_BYTES)
    except (OSError, InvalidInputError):
        return None
    if stat is None:
        return None
    # The command name (field 2) is in parentheses and may hold spaces.
    rest = stat[stat.rfind(")") + 2 :].split()
    return rest[19] if len(rest) > 19 else None


@cache
def this_process() -> str:
    """This process's identity, `pid:start` (the pid alone without /proc)."""
    pid = os.getpid()
    started = start_time(pid)
    return f"{pid}:{started}" if started is not None else str(pid)


def alive(owner: str) -> bool:
    """Whether the process an identity names still runs (the same process: a
    reused pid with another start time is not it)."""
    pid_text, _, started = owner.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if not started:
        return True
    return start_time(pid) == started
