"""What a rule reports: the rule's name and a line saying what it saw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]


@dataclass(frozen=True)
class Finding:
    rule: str
    detail: str


def quoted(fragment: str) -> str:
    flat = " ".join(fragment.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


def rx(pattern: str) -> Any:
    """A rule's pattern on RE2 (linear time), with room for the DFA of patterns
    over Unicode classes (the default 8 MB makes RE2 fall back to its slower
    NFA, and log about it), and no logging of its own."""
    options = re2.Options()
    options.max_mem = 64 << 20
    options.log_errors = False
    return re2.compile(pattern, options)
