"""Idioms of ending by WordNet: a verb with its own object ("call it a day",
"kick the bucket", "throw in the towel") in any inflection ends who said it
beside the person, or its subject when someone else said it, and what it
ended on; the idiom's own words name nothing; a negated or planned one ends
nothing. The table is built from WordNet's files and read by one module.
Names are made up."""

from __future__ import annotations

import itertools
import json

import pytest

from substrate.meaning.events import read_events
from substrate.meaning.idioms import TABLE_PATH, ending_idioms
from tests.made_up import names, seeded

TOGETHER = ["{n} and I {v}", "Me and {n} {v} last week"]
CALLED = ["called it a day", "called it quits", "have called it quits", "are calling it a day"]
ALONE = ["{n} kicked the bucket", "{n} has kicked the bucket", "{n} bought the farm last spring"]
ON = ["we called it quits on the {t}", "I've called it a day on the {t}"]
THINGS = ["band", "allotment", "choir", "book club"]
NOT = [
    "{n} and I won't call it a day",
    "{n} and I might call it quits",
    "{n} and I didn't call it a day",
]


def _ends(said: str) -> list[str]:
    return [e.lower() for e in read_events(said).ends]


@pytest.mark.parametrize(("frame", "verb"), list(itertools.product(TOGETHER, CALLED)))
def test_an_idiom_said_with_someone_ends_them(frame: str, verb: str) -> None:
    # the small parse now and then reads a made-up name as no subject at all
    # ("Roka and I …"): most names, not every one
    said = [frame.format(n=n, v=verb) for n in names(8, len(frame) + len(verb))]
    ended = [s for s, n in zip(said, names(8, len(frame) + len(verb)), strict=True)
             if n.lower() in _ends(s)]  # fmt: skip
    assert len(ended) >= 6, sorted(set(said) - set(ended))


@pytest.mark.parametrize("frame", ALONE)
def test_an_idiom_said_of_someone_ends_its_subject(frame: str) -> None:
    n = seeded(frame)
    said = frame.format(n=n)
    assert n.lower() in _ends(said), said


@pytest.mark.parametrize(("frame", "thing"), list(itertools.product(ON, THINGS)))
def test_an_idiom_ends_what_it_was_said_on_and_not_its_own_words(frame: str, thing: str) -> None:
    ended = _ends(frame.format(t=thing))
    assert thing.split()[-1] in " ".join(ended), (frame, ended)
    assert not {"it", "day", "quits", "towel", "bucket"} & set(ended)


@pytest.mark.parametrize("frame", NOT)
def test_a_negated_or_planned_idiom_ends_nothing(frame: str) -> None:
    n = seeded(frame)
    assert n.lower() not in _ends(frame.format(n=n))


def test_the_table_is_wordnets_idioms_of_ending() -> None:
    doc = json.loads(TABLE_PATH.read_text())
    assert "WordNet" in doc["source"] and "Princeton" in doc["license"]
    assert {"call it a day", "kick the bucket", "throw in the towel"} <= set(doc["idioms"])
    assert all(len(i.replace("-", " ").split()) >= 3 for i in doc["idioms"])
    assert ending_idioms("she threw in the towel") == {"throw": frozenset({"in", "the", "towel"})}
