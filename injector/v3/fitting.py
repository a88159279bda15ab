"""Fitting pages onto the card: whole facts, the best first, the room used.

A page's excerpt is made of **units**, never cut inside one: a fact bullet
(with the facts it replaced, indented under it, which go first when room is
short), a prose line, or, for a line too long to show whole, each of its
sentences. A page's units come in the order they are worth showing: the
**lead**, the unit of its best chunk that best answers the turn (its best
chunk is the one the search ranked first by every signal together, dense
similarity included; inside it, the unit sharing most of the turn's words and
name keys, an old value yielding to the current one), then the unit after the
lead, then the rest of that chunk, then the page's next chunks in the order
search ranked them.

The card is filled in two passes over the pages in order: each page first gets
its lead, or is left off when even that cannot fit (a stub is worth less than
the next page's whole fact); then the room left goes to each page's next
units, a page at a time, within a share that halves down the list, and what a
page cannot use flows on. Everything is measured as it will be rendered
(escaped, and quoted for a quarantined page).
"""

from __future__ import annotations

from dataclasses import dataclass

from injector.render import fit_excerpt
from substrate.index.bm25 import chunk_keys, tokenize
from substrate.index.excerpts import SPAN_BREAK
from substrate.safety import linear

LONG_LINE = 400  # characters: a prose line longer than this is shown sentence by sentence
HISTORY_MARKS = ("] was: ", "] no longer true")
_SENTENCE_END = linear(r"[.!?؟。]\s+")


@dataclass(frozen=True)
class Unit:
    text: str
    span: int  # the chunk it came from: 0 is the page's best
    at: int  # its place in that chunk
    score: float  # the turn's words and name keys it shares


@dataclass(frozen=True)
class Fitted:
    """A page's excerpt on the card, and how many of its units it shows."""

    excerpt: str
    units: int


def units_of(excerpt: str, terms: set[str]) -> list[Unit]:
    """The page's units, best first (module doc)."""
    spans = [s for s in excerpt.split(SPAN_BREAK) if s.strip()]
    units = [
        Unit(text, span, at, _score(text, terms))
        for span, body in enumerate(spans)
        for at, text in enumerate(_split(body))
    ]
    first = [u for u in units if u.span == 0]
    if not first:
        return units
    lead = max(first, key=lambda u: (u.score, -u.at))
    after = [u for u in first if u.at == lead.at + 1]
    rest = sorted((u for u in first if u not in (lead, *after)), key=lambda u: (-u.score, u.at))
    return [lead, *after, *rest, *(u for u in units if u.span > 0)]


def _split(body: str) -> list[str]:
    """A chunk's units in order: a bullet with its indented lines, a prose line,
    or the sentences of a line too long to show whole."""
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
    """The line's sentences; one still longer than `LONG_LINE` (no sentence ends)
    in word-bounded pieces, the only place a unit is not a whole sentence."""
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


def _score(unit: str, terms: set[str]) -> float:
    head, *tail = unit.split("\n")
    shared = len(terms & {*tokenize(head), *chunk_keys(head)})
    old = [line for line in tail if any(mark in line for mark in HISTORY_MARKS)]
    older = max((len(terms & {*tokenize(line), *chunk_keys(line)}) for line in old), default=0)
    return shared + 0.5 * older


def shown(units: list[Unit], count: int) -> str:
    """The first `count` units, in the order the page holds them; an elision mark
    where units are skipped."""
    picked = sorted(units[:count], key=lambda u: (u.span, u.at))
    parts: list[str] = []
    for i, unit in enumerate(picked):
        if i and not _adjacent(picked[i - 1], unit):
            parts.append("…")
        parts.append(unit.text)
    return "\n".join(parts)


def _adjacent(before: Unit, after: Unit) -> bool:
    return before.span == after.span and after.at == before.at + 1


def size(units: list[Unit], count: int, quarantined: bool) -> int:
    """Characters the first `count` units take once rendered."""
    text = shown(units, count)
    return len(fit_excerpt(text, len(text) * 8 + 16, quarantined))


def fit(
    pages: list[list[Unit]],
    heads: list[int],
    quarantined: list[bool],
    room: int,
    decay: float = 0.5,
) -> list[int]:
    """How many units of each page go on a card with `room` characters for its
    pages (`heads`: each page's fixed characters); 0 leaves a page off. After
    the leads, the first page may take `1 - decay` of the room left, the next
    that share of what remains, and so on; then what is left, in page order."""
    counts = [0] * len(pages)
    for i, units in enumerate(pages):  # every page its lead, in order, while it fits
        cost = heads[i] + size(units, 1, quarantined[i]) if units else room + 1
        if cost <= room:
            counts[i] = 1
            room -= cost
    on = [i for i, n in enumerate(counts) if n]
    for rank, i in enumerate(on):  # then more of each page, the first the most
        allowance = max(int(room * (1 - decay)), room // (len(on) - rank))
        room -= _grow(pages[i], counts, i, quarantined[i], min(allowance, room))
    for i in on:  # and what the shares left, in page order
        room -= _grow(pages[i], counts, i, quarantined[i], room)
    return counts


def _grow(units: list[Unit], counts: list[int], i: int, quarantined: bool, room: int) -> int:
    """Add page `i`'s next units while they fit in `room`; the characters used."""
    used = start = size(units, counts[i], quarantined)
    while counts[i] < len(units):
        grown = size(units, counts[i] + 1, quarantined)
        if grown - start > room:
            break
        used = grown
        counts[i] += 1
    return used - start
