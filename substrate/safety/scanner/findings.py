"""What a rule reports: the rule's name, a line saying what it saw, and whether
the evidence is firm.

Firm evidence is what almost never occurs in a person's own text: a secret's
value, an invisible or bidi character, a tag payload, our reserved tags, a
chat-template token, an unambiguous override ("ignore all previous
instructions"). Everything else (the other injection families, the strict
policy's instruction rule, look-alike letters, the learned detector) is a
judgement: for a person's own words it holds the write for review instead of
refusing it (see `Verdict.action`)."""

from __future__ import annotations

from dataclasses import dataclass

from substrate.safety.patterns import Linear, linear


@dataclass(frozen=True)
class Finding:
    rule: str
    detail: str
    firm: bool = True


def quoted(fragment: str) -> str:
    flat = " ".join(fragment.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


def rx(pattern: str) -> Linear:
    """A rule's pattern on RE2 (linear time), spelled as written: the rules name
    their own classes (`[\\pL\\pN_]` where they mean a word of any script)."""
    return linear(pattern, unicode_words=False)
