"""How many cores this process may really use, for sizing model thread pools.

`os.cpu_count()` is the host's count. A container limited by a CPU affinity
mask or a cgroup quota gets far less, and both model runtimes spin their
worker threads while waiting: given more threads than cores they do not just
share, they collapse. Measured on 2 cores (`bench/threads.py`): the bundled
MiniLM embeds 13x slower with 16 threads than with 2, and the multilingual
model's numpy forward pass 200x slower with 3 threads than with 2.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from substrate.errors import InvalidInputError
from substrate.safety import read_text_file

CGROUP_ROOT = Path("/sys/fs/cgroup")


def usable_cpus(cgroup_root: Path = CGROUP_ROOT) -> int:
    """The smallest of the host's count, the affinity mask and the cgroup quota."""
    counts = [os.cpu_count() or 1]
    if hasattr(os, "sched_getaffinity"):
        counts.append(len(os.sched_getaffinity(0)))
    quota = cgroup_quota(cgroup_root)
    if quota is not None:
        counts.append(quota)
    return max(1, min(counts))


def cgroup_quota(root: Path = CGROUP_ROOT) -> int | None:
    """The CPU quota in whole cores (rounded up), cgroup v2 or v1; None when unlimited
    or unreadable. Only the mount's own files are read: a nested group's limit
    shows there inside a container, which is where quotas come from here."""
    v2 = _read(root / "cpu.max")
    if v2 is not None:
        fields = v2.split()
        if len(fields) == 2 and fields[0] != "max":
            return _cores(fields[0], fields[1])
        return None
    quota = _read(root / "cpu" / "cpu.cfs_quota_us")
    period = _read(root / "cpu" / "cpu.cfs_period_us")
    if quota is None or period is None:
        return None
    return _cores(quota, period)


def _cores(quota: str, period: str) -> int | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    if q <= 0 or p <= 0:
        return None  # -1: no quota
    return max(1, math.ceil(q / p))


def _read(path: Path) -> str | None:
    try:
        text = read_text_file(path, 4096)
    except (OSError, UnicodeDecodeError, InvalidInputError):
        return None
    return None if text is None else text.strip()
