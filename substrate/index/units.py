"""A chunk's units: what a card shows whole, and what is scored by meaning.

A unit is a fact bullet with its indented lines (the facts it replaced, or its
own further lines), a prose line, or, for a line longer than `LONG_LINE`, each
of its sentences (one still too long, with no sentence end, in word-bounded
pieces: the only place a unit is not whole). The index embeds every unit of
every chunk (`unit_vectors`) and the card splits a hit's chunks the same way,
so a unit's key (`unit_key`, a hash of its text) finds its vector.
"""

from __future__ import annotations

import hashlib

from substrate.safety.patterns import linear

LONG_LINE = 400  # characters: a prose line longer than this is shown sentence by sentence
_SENTENCE_END = linear(r"[.!?؟。]\s+")


def split_units(body: str) -> list[str]:
    """A chunk body's units, in order (see the module doc)."""
    out: list[str] = []
    for line in body.split("\n"):
        if not line.strip():
            continue
        if line.startswith(" ") and out and out[-1].lstrip().startswith("- ["):
            out[-1] += "\n" + line  # a replaced fact, or a fact's next line
        elif len(line) > LONG_LINE:
            out += _sentences(line)
        else:
            out.append(line)
    return out


def _sentences(line: str) -> list[str]:
    out, start = [], 0
    for match in _SENTENCE_END.finditer(line):
        out.append(line[start : match.start() + 1])
        start = match.end()
    out.append(line[start:])
    pieces: list[str] = []
    for sentence in (s for s in out if s.strip()):
        while len(sentence) > LONG_LINE:
            cut = sentence.rfind(" ", 0, LONG_LINE)
            cut = cut if cut > 0 else LONG_LINE
            pieces.append(sentence[:cut] + " …")
            sentence = sentence[cut:].lstrip()
        pieces.append(sentence)
    return [p for p in pieces if p.strip()]


def unit_key(text: str) -> int:
    """A unit's key: 63 bits of a hash of its text (a signed int64 for numpy)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
