"""Fitting pages onto the card: whole facts, the best first, the room used.

A page's excerpt is made of **units** (`substrate.index.units`), never cut
inside one: a fact bullet with the facts it replaced indented under it, a
prose line, or, for a line too long to show whole, each of its sentences. A
page's units come in the order they are worth showing: the **lead**, the unit
of its best chunk that best answers the turn by every signal (its best chunk
is the one the search ranked first by dense, multilingual and BM25 scores
together; inside it, each unit's own multilingual cosine with the turn, from
the index's unit vectors, plus the turn's words and name keys it shares, an
old value counting half), then the unit after the lead, then the rest of that
chunk, then the page's next chunks in the order search ranked them.

The card is filled in passes: each page, in order, first gets its lead, or is
left off when even that cannot fit (a stub is worth less than the next page's
whole fact); then the room left goes to the best of all the other units by
score, wherever they stand (the way one page per fact would rank them, kept
under their pages); then to what is left, in each page's order. Everything is
measured as it will be rendered (escaped, and quoted for a quarantined page).
"""

from __future__ import annotations

from dataclasses import dataclass

from injector.render import fit_excerpt
from substrate.index.bm25 import chunk_keys, tokenize
from substrate.index.excerpts import SPAN_BREAK
from substrate.index.units import split_units, unit_key

HISTORY_MARKS = ("] was: ", "] no longer true")
# A unit's cosine with the turn counts this many shared words: a unit nearer
# by 0.25 in meaning outranks one that shares a word more.
MEANING = 4.0


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


def units_of(excerpt: str, terms: set[str], meaning: dict[int, float] | None = None) -> list[Unit]:
    """The page's units, best first (module doc). `meaning`: each unit's cosine
    with the turn, by `unit_key`, when the index has them."""
    spans = [s for s in excerpt.split(SPAN_BREAK) if s.strip()]
    near = meaning or {}
    units = [
        Unit(text, span, at, _score(text, terms) + MEANING * near.get(unit_key(text), 0.0))
        for span, body in enumerate(spans)
        for at, text in enumerate(split_units(body))
    ]
    first = [u for u in units if u.span == 0]
    if not first:
        return units
    lead = max(first, key=lambda u: (u.score, -u.at))
    after = [u for u in first if u.at == lead.at + 1]
    rest = sorted((u for u in first if u not in (lead, *after)), key=lambda u: (-u.score, u.at))
    return [lead, *after, *rest, *(u for u in units if u.span > 0)]


def _score(unit: str, terms: set[str]) -> float:
    head, *tail = unit.split("\n")
    shared = len(terms & {*tokenize(head), *chunk_keys(head)})
    old = [line for line in tail if any(mark in line for mark in HISTORY_MARKS)]
    older = max((len(terms & {*tokenize(line), *chunk_keys(line)}) for line in old), default=0)
    return shared + 0.5 * older


def shown(picked: list[Unit]) -> str:
    """Units on the card: the first (the lead) first, then the others in the
    order the page holds them; an elision mark where units are skipped."""
    if not picked:
        return ""
    lead, *others = picked
    ordered = [lead, *sorted(others, key=lambda u: (u.span, u.at))]
    parts: list[str] = []
    for i, unit in enumerate(ordered):
        if i and not _adjacent(ordered[i - 1], unit) and not (i == 1 and _adjacent(unit, lead)):
            parts.append("…")
        parts.append(unit.text)
    return "\n".join(parts)


def _adjacent(before: Unit, after: Unit) -> bool:
    return before.span == after.span and after.at == before.at + 1


def size(picked: list[Unit], quarantined: bool) -> int:
    """Characters these units take once rendered."""
    text = shown(picked)
    return len(fit_excerpt(text, len(text) * 8 + 16, quarantined))


def fit(
    pages: list[list[Unit]], heads: list[int], quarantined: list[bool], room: int
) -> list[list[Unit]]:
    """The units of each page that go on a card with `room` characters for its
    pages (`heads`: each page's fixed characters), the lead first; none leaves a
    page off. Every page its lead first, in page order, while it fits; then the
    best of all the other units by score (a fact nearer the turn than another
    page's next one goes first); then what is left, in each page's order."""
    picked: list[list[Unit]] = [[] for _ in pages]
    for i, units in enumerate(pages):
        cost = heads[i] + size(units[:1], quarantined[i]) if units else room + 1
        if cost <= room:
            picked[i] = units[:1]
            room -= cost
    on = [i for i, p in enumerate(picked) if p]
    rest = [(i, n, u) for i in on for n, u in enumerate(pages[i][1:], 1)]
    for order in (lambda c: (-c[2].score, on.index(c[0]), c[1]), lambda c: (on.index(c[0]), c[1])):
        for i, _, unit in sorted(rest, key=order):
            if unit in picked[i]:
                continue
            grown = size([*picked[i], unit], quarantined[i]) - size(picked[i], quarantined[i])
            if grown <= room:
                picked[i] = [*picked[i], unit]
                room -= grown
    return picked
