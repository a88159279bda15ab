"""The card's fitting inputs recorded per question, for the development fixture.

    python bench/card_lines.py ../shared/data --half even --out FILE [--sets …]

Asks every question of `bench/retrieval.py`'s sets (the half's questions,
their `rewritten` and `unshared` forms) of the card, and records what its
fitting step (`injector.v3.fitting.fit`) was handed: each page's units as
their rendered length, their own score against the turn (before anything is
taken from a neighbour), whether each is a dated fact or a question and
whether it holds the question's evidence line; the room, the pages' heads
and search's first pages. No text is kept. Replaying `ranked` and `fit` on
these rows scores a change to how units take from their neighbours without
building an index (`tests/injector/test_fitting.py`).

It then keeps the questions whose card line `fitting.beside_lead` changes,
either way, and 40 it leaves alone (seeded), and writes them to `--out`
(gzipped JSON): `tests/data/card_lines_even.json.gz` is `--half even` over
every set. `--every FILE` also writes every question's row, for replaying
other rules over a whole half. Printed: each set's questions, and the cards
holding the line with and without the rule among those kept.

The recording wraps the card's `ranked` and `fit` in this process only (the
card's own code is run unchanged).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from filing import build_pages, load_models
from locomo import evidence_share
from retrieval import LINE, SETS, Question, rewritten, unshared

import injector.v3.card as card
from injector import Injector
from injector.render import fit_excerpt
from injector.v3 import fitting
from injector.v3.fitting import Unit, asks, is_fact

Row = dict[str, Any]


class Recorder:
    """The card's `ranked` and `fit` calls of one question, as they happen."""

    def __init__(self) -> None:
        self.scored: dict[int, tuple[list[list[str]], list[list[float]]]] = {}
        self.fits: list[tuple[list[list[Unit]], list[int], list[bool], int, list[int]]] = []
        self._ranked = fitting.ranked
        self._fit = card.fit  # type: ignore[attr-defined]

    def install(self) -> None:
        fitting.ranked = self.ranked
        card.fit = self.fit  # type: ignore[attr-defined]

    def ranked(self, spans: Sequence[Sequence[str]], own: Sequence[Sequence[float]]) -> list[Unit]:
        units = self._ranked(spans, own)
        if units:
            self.scored[id(units[0])] = ([list(s) for s in spans], [list(o) for o in own])
        return units

    def fit(
        self,
        pages: list[list[Unit]],
        heads: list[int],
        quarantined: list[bool],
        room: int,
        leads: Sequence[int] = (),
    ) -> list[list[Unit]]:
        self.fits.append((pages, heads, quarantined, room, list(leads)))
        return self._fit(pages, heads, quarantined, room, leads)

    def row(self, q: Question, name: str) -> Row | None:
        """The question's fitting inputs; None unless the card fitted once,
        every page's units scored by `ranked`."""
        if len(self.fits) != 1:
            return None
        pages, heads, quarantined, room, leads = self.fits[0]
        recorded = []
        for units in pages:
            scored = self.scored.get(id(units[0])) if units else None
            if scored is None:
                return None
            spans, own = scored
            recorded.append({"units": [_units(t, o, q) for t, o in zip(spans, own, strict=True)]})
        return {
            "set": name,
            "kind": q.kind,
            "heads": heads,
            "quoted": [int(b) for b in quarantined],
            "room": room,
            "leads": leads,
            "pages": recorded,
        }


def _units(texts: list[str], own: list[float], q: Question) -> list[list[float]]:
    """Each unit as [rendered length, own score, fact, question, holds the evidence]."""
    return [
        [
            len(fit_excerpt(t, len(t) * 8 + 16, False)),
            round(o, 4),
            int(is_fact(t)),
            int(asks(t)),
            int(evidence_share(t, q.evidence) >= LINE),
        ]
        for t, o in zip(texts, own, strict=True)
    ]


def record(data: Path, half: str, sets: list[str]) -> list[Row]:
    recorder = Recorder()
    recorder.install()
    models = load_models()
    rows: list[Row] = []
    for name in sets:
        seen = 0
        with tempfile.TemporaryDirectory() as scratch:
            for c, corpus in enumerate(SETS[name](data)):
                chosen = []
                for q in corpus.questions:
                    seen += 1
                    if (seen % 2 == 0) == (half == "even"):
                        chosen.append(q)
                if not chosen:
                    continue
                settings, index, _ = build_pages(Path(scratch, str(c)), corpus.pages, models)
                injector = Injector(settings, index)
                for n, q in enumerate(chosen):
                    again = rewritten(q) if n % 2 == 0 else None
                    for asked in (q, again, unshared(q, corpus.pages)):
                        if asked is None:
                            continue
                        recorder.scored.clear()
                        recorder.fits.clear()
                        injector.assemble(asked.text)
                        row = recorder.row(asked, name)
                        if row is not None:
                            rows.append(row)
                index.store.close()
        print(f"{name}: {sum(r['set'] == name for r in rows)} questions", file=sys.stderr)
    return rows


def shows_evidence(row: Row, rank: Callable[..., list[Unit]] | None = None) -> bool:
    """Whether the card fitted from `row` shows a unit holding the evidence:
    each unit stands in as a text of its rendered length, a fact where it
    was one, a question where it asked one."""
    rank = rank or fitting.ranked
    pages, evidence = [], set()
    for p, page in enumerate(row["pages"]):
        spans, own = [], []
        for s, span in enumerate(page["units"]):
            texts = []
            for a, (length, _, fact, question, holds) in enumerate(span):
                head = ("- [" if fact else "") + f"u{p}.{s}.{a} "
                text = head + "x" * max(0, int(length) - len(head) - 1) + ("?" if question else "x")
                texts.append(text)
                if holds:
                    evidence.add(text)
            spans.append(texts)
            own.append([float(unit[1]) for unit in span])
        pages.append(rank(spans, own))
    quoted = [bool(q) for q in row["quoted"]]
    picked = fitting.fit(pages, row["heads"], quoted, row["room"], row["leads"])
    return any(u.text in evidence for units in picked for u in units)


def without_neighbours(
    spans: Sequence[Sequence[str]], own: Sequence[Sequence[float]]
) -> list[Unit]:
    """`fitting.ranked` with the lead's neighbours scoring only what they say."""
    return fitting.best_first(fitting.carried(spans, own), lambda u: u.at)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--half", choices=("even", "odd"), default="even")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--unchanged", type=int, default=40, help="questions the rule leaves alone")
    parser.add_argument("--every", type=Path, help="also write every question's row here")
    args = parser.parse_args()
    rows = record(args.data, args.half, args.sets.split(","))
    if args.every:
        with gzip.open(args.every, "wt") as f:
            json.dump(rows, f, separators=(",", ":"))
    changed: list[Row] = []
    alone: list[Row] = []
    for row in rows:
        with_rule, without = shows_evidence(row), shows_evidence(row, without_neighbours)
        (changed if with_rule != without else alone).append(row)
    kept = changed + random.Random(62).sample(alone, min(args.unchanged, len(alone)))
    with gzip.open(args.out, "wt") as f:
        json.dump(kept, f, separators=(",", ":"))
    held = (
        sum(shows_evidence(r) for r in kept),
        sum(shows_evidence(r, without_neighbours) for r in kept),
    )
    print(json.dumps({"questions": len(rows), "kept": len(kept), "line_with_without": held}))


if __name__ == "__main__":
    main()
