"""How logged text is folded for full-text search, and how a search is phrased.

FTS5's `unicode61` tokenizer splits Arabic words at their vowel marks (a
shadda inside "خلّي" would cut it in two), so the log indexes a folded copy:
lowercased, Arabic marks and tatweel removed, alef forms unified. Queries are
folded the same way and every term is quoted, so a user's words can never be
read as FTS syntax."""

from __future__ import annotations

import unicodedata

from substrate.safety.patterns import runs

_MARKS = runs("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
_ALEF = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا"})
_TERM = runs(r"\w+")


def normalize(text: str) -> str:
    """The folded copy of `text` the full-text index holds."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return _MARKS.sub("", folded).translate(_ALEF)


def fts_query(phrases: list[str], requires: list[str] | None = None) -> str | None:
    """An FTS5 MATCH expression for any of `phrases` (each folded, its words one
    quoted phrase), and, with `requires`, any of those too; None when no phrase
    has a word in it."""
    quoted = _any(phrases)
    if quoted is None:
        return None
    needed = _any(requires or [])
    return quoted if needed is None else f"({quoted}) AND ({needed})"


def _any(phrases: list[str]) -> str | None:
    quoted = sorted(
        {'"' + " ".join(words) + '"' for p in phrases if (words := _TERM.findall(normalize(p)))}
    )
    return " OR ".join(quoted) if quoted else None
