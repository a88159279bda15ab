"""Fitting pages onto the card: whole facts, the best first, the room used.

A page's excerpt is made of **units** (`substrate.index.units`), never cut
inside one: a fact bullet with the facts it replaced indented under it, a
prose line, or, for a line too long to show whole, each of its sentences. A
page's units come in the order they are worth showing: the **lead**, the unit
of its best chunk that best answers the turn by every signal (its best chunk
is the one the search ranked first by dense, multilingual and BM25 scores
together; inside it, each unit's own multilingual cosine with the turn, from
the index's unit vectors, plus the turn's words and name keys it shares, an
old value counting half; a line of prose or conversation scores at least
`CARRIED` of the line before it, which it goes on from (a sentence that
says "they" names no one, and its meaning alone misses what it is about);
a question passes its whole score on to the line after it, its answer, and
keeps `ASKED` of it: in a conversation the line most like a question about
a topic is someone asking about it, and the line after it is the one that
says; a dated fact bullet, made whole by consolidation, is read alone),
then the unit after the lead, then the rest of that chunk, then the page's
next chunks in the order search ranked them. The lead's neighbours in its
chunk, the line before and the line after, score at least `CARRIED` of the
lead's score: they are its context (the line before names what the lead
only refers to, the line after goes on from it), and a question worded its
own way often finds the sentence beside the one that answers.

The card is filled in passes: the first two pages get their leads, in order;
then every other unit of the card competes by score, wherever it stands (the
way one page per fact would rank them, kept under their pages): a page's
other units once its lead is on, a page still off only by its lead, paying
for its heading too, so the card shows fewer whole pages rather than a stub
of each; then what is left, in page order. A page that cannot show one whole
unit is left off. Everything is measured as it will be rendered (escaped,
and quoted for a quarantined page).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from injector.render import fit_excerpt
from substrate.index.bm25 import chunk_keys, tokenize
from substrate.index.excerpts import SPAN_BREAK
from substrate.index.units import split_units, unit_key

HISTORY_MARKS = ("] was: ", "] no longer true")
FACT = "- ["  # how a dated fact bullet starts
# A unit's cosine with the turn counts this many shared words: a unit nearer
# by 0.25 in meaning outranks one that shares a word more.
MEANING = 4.0
FIRST_PAGES = 2  # pages whose leads go on first, whatever the other units score
# A unit goes on from the one before it ("They also won the cup twice", after
# the sentence that names the club): it scores at least this share of it.
CARRIED = 0.5
# A question ("Have you watched anything good lately?") resembles a turn that
# asks the same, but it is the line after it that answers: the question passes
# its whole score on to that line and keeps this share of it (with no score at
# all, units keep their order).
ASKED = 0.75


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
    spans = [split_units(s) for s in excerpt.split(SPAN_BREAK) if s.strip()]
    near = meaning or {}
    own = [
        [term_score(t, terms) + MEANING * near.get(unit_key(t), 0.0) for t in texts]
        for texts in spans
    ]
    return ranked(spans, own)


def ranked(spans: Sequence[Sequence[str]], own: Sequence[Sequence[float]]) -> list[Unit]:
    """A page's units, best first, from each chunk's units (`spans`, best chunk
    first) and each unit's own score against the turn (module doc): what a
    unit takes from its neighbours is read here."""
    return best_first(beside_lead(carried(spans, own)), lambda u: u.at)


def carried(spans: Sequence[Sequence[str]], own: Sequence[Sequence[float]]) -> list[Unit]:
    """Each chunk's units in excerpt order, scored once what they take from the
    line before them and a question before them is read (`answered`)."""
    units: list[Unit] = []
    for span, (texts, scores) in enumerate(zip(spans, own, strict=True)):
        read = answered(texts, scores)
        units += [Unit(t, span, at, read[at]) for at, t in enumerate(texts)]
    return units


def beside_lead(units: list[Unit]) -> list[Unit]:
    """`units` (in excerpt order) with the lead's neighbours in its chunk, the
    prose units just before and after it, scoring at least `CARRIED` of the
    lead (module doc). A dated fact is read alone: it neither lends its score
    to its neighbours nor takes the lead's."""
    lead = lead_of(units, lambda u: u.at)
    if lead is None or is_fact(lead.text):
        return units
    floor = CARRIED * lead.score
    return [
        replace(u, score=max(u.score, floor))
        if u.span == 0 and abs(u.at - lead.at) == 1 and not is_fact(u.text)
        else u
        for u in units
    ]


class Ranked(Protocol):
    """What `best_first` orders: a page's unit or an episode's line."""

    @property
    def span(self) -> int: ...
    @property
    def score(self) -> float: ...


R = TypeVar("R", bound=Ranked)


def best_first(items: list[R], place: Callable[[R], int]) -> list[R]:
    """`items` (in excerpt order) as the card ranks them (module doc): the lead,
    the best of the best chunk (span 0); the one after it; the rest of that
    chunk by score; then the other chunks in order. `place`: an item's
    position within span 0."""
    lead = lead_of(items, place)
    if lead is None:
        return items
    first = [i for i in items if i.span == 0]
    after = [i for i in first if place(i) == place(lead) + 1]
    rest = sorted((i for i in first if i not in (lead, *after)), key=lambda i: (-i.score, place(i)))
    return [lead, *after, *rest, *(i for i in items if i.span > 0)]


def lead_of(items: list[R], place: Callable[[R], int]) -> R | None:
    """The best of the best chunk (span 0), the first of equals; None when
    nothing is in it."""
    first = [i for i in items if i.span == 0]
    return max(first, key=lambda i: (i.score, -place(i))) if first else None


def asks(unit: str) -> bool:
    """A unit that is a question (its last line ends with a question mark)."""
    return unit.rstrip().endswith(("?", "؟"))


def answered(texts: Sequence[str], own: Sequence[float]) -> list[float]:
    """Each unit's score once its neighbours' are read (module doc): a line of
    prose or conversation scores at least `CARRIED` of the one before it; a
    question passes its whole score on to the line after it, its answer, and
    keeps `ASKED` of its own. A fact bullet is a statement made whole by
    consolidation, read alone: it neither takes nor passes a score."""
    scores = list(own)
    prose = [not is_fact(text) for text in texts]
    for at in range(1, len(texts)):
        if prose[at] and prose[at - 1]:
            scores[at] = max(scores[at], CARRIED * own[at - 1])
    for at, text in enumerate(texts):
        if prose[at] and asks(text):
            scores[at] = min(own[at], own[at] * ASKED)
            if at + 1 < len(texts) and prose[at + 1]:
                scores[at + 1] = max(scores[at + 1], own[at])
    return scores


def is_fact(unit: str) -> bool:
    """A dated fact bullet of a page's facts ("- [2 June 2024] …")."""
    return unit.startswith(FACT)


def term_score(unit: str, terms: set[str]) -> float:
    """The turn's words and name keys the unit shares; an old value's, half."""
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
    pages: list[list[Unit]],
    heads: list[int],
    quarantined: list[bool],
    room: int,
    leads: Sequence[int] = (),
) -> list[list[Unit]]:
    """The units of each page that go on a card with `room` characters for its
    pages (`heads`: each page's fixed characters), the lead first; none leaves a
    page off. The first `FIRST_PAGES` pages get their leads, in order, while
    they fit, then the pages `leads` names (search's first hits) theirs; then
    every other unit of the card competes by score, a page's
    other units once its lead is on, a page still off by its lead, paying for
    its heading too (fewer whole pages, not a stub of every page); then what is
    left, in page order."""
    picked: list[list[Unit]] = [[] for _ in pages]
    for i in [*range(min(FIRST_PAGES, len(pages))), *leads]:
        units = pages[i]
        if picked[i]:
            continue
        cost = heads[i] + size(units[:1], quarantined[i]) if units else room + 1
        if cost <= room:
            picked[i] = units[:1]
            room -= cost
    ranked = sorted(
        ((i, n, u) for i, units in enumerate(pages) for n, u in enumerate(units)),
        key=lambda c: (-c[2].score, c[0], c[1]),
    )
    for order in (ranked, sorted(ranked, key=lambda c: (c[0], c[1]))):
        for i, n, unit in order:
            if unit in picked[i] or (n > 0) != bool(picked[i]):
                continue  # on already; or another page's unit before its lead
            fixed = 0 if picked[i] else heads[i]
            grown = (
                fixed + size([*picked[i], unit], quarantined[i]) - size(picked[i], quarantined[i])
            )
            if grown <= room:
                picked[i] = [*picked[i], unit]
                room -= grown
    return picked
