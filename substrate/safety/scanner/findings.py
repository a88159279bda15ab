"""What a rule reports: the rule's name and a line saying what it saw."""

from __future__ import annotations

from dataclasses import dataclass

from substrate.safety.patterns import Linear, linear


@dataclass(frozen=True)
class Finding:
    rule: str
    detail: str


def quoted(fragment: str) -> str:
    flat = " ".join(fragment.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


def rx(pattern: str) -> Linear:
    """A rule's pattern on RE2 (linear time), spelled as written: the rules name
    their own classes (`[\\pL\\pN_]` where they mean a word of any script)."""
    return linear(pattern, unicode_words=False)
