"""A pet now living elsewhere ends it as the person's: gone to live with one of
theirs, kept at a place that keeps animals for good, gone to a new home; a
stay with an end in sight, a boarding kennel, someone else's people, a
negated or planned move, and the person's own move end nothing. The words
that tell it stand as history even with a reason or an aside beside them.
Names are made up."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from substrate.consolidation.ends import told_ends
from substrate.consolidation.lifecycle import decide, reading_of
from substrate.meaning.events import read_events
from substrate.pages import FactBullet
from tests.made_up import seeded

GONE = [
    "{n} went to live with my {r}",
    "{n} has gone to live with my {r}",
    "{n} moved to live with my {r} last month",
    "{n}'s at a {k} now",
    "{n} is at a {k} in the hills",
    "{n} went to a new home",
    "Our {p} went to a new home last week",
]
RELATIVES = ["niece", "parents", "aunt", "grandad"]
KEEPERS = ["reptile sanctuary", "rescue centre", "donkey sanctuary", "farm"]
PETS = ["cat", "budgie", "rabbit", "tortoise"]
STAYS = [
    "{n} is with my parents for the weekend",
    "{n} is at the kennels while we're away",
    "{n} is staying at a cattery until Friday",
    "{n} went to live with his dad",
    "{n} didn't go to live with my niece after all",
    "{n} might go to live with my niece",
    "I went to live with my aunt",
]
OLDS = ["{n} the corn snake lives in a vivarium in my bedroom", "our tabby {n} is 12"]
REASONS = [
    " since the new flat doesn't allow pets",
    " because of my allergies",
    " (she adores him)",
]


def _fill(frame: str, n: str, i: int) -> str:
    return frame.format(
        n=n, r=RELATIVES[i % len(RELATIVES)], k=KEEPERS[i % len(KEEPERS)], p=PETS[i % len(PETS)]
    )


@pytest.mark.parametrize(("frame", "i"), list(itertools.product(GONE, range(3))))
def test_a_pet_living_elsewhere_is_ended(frame: str, i: int) -> None:
    n = seeded(frame + str(i))
    said = _fill(frame, n, i)
    ended = [e.lower() for e in read_events(said).ends]
    named = n.lower() if "{n}" in frame else PETS[i % len(PETS)]
    assert any(named in e for e in ended), (said, ended)


@pytest.mark.parametrize(("frame", "i"), list(itertools.product(STAYS, range(2))))
def test_a_stay_someone_elses_people_or_the_persons_own_move_end_nothing(
    frame: str, i: int
) -> None:
    n = seeded(frame + str(i))
    said = _fill(frame, n, i)
    assert not [e for e in read_events(said).ends if n.lower() in e.lower()], said


@pytest.mark.parametrize(("old", "gone"), list(itertools.product(OLDS, GONE[:5])))
def test_the_fact_naming_the_pet_is_retracted(old: str, gone: str) -> None:
    n = seeded(old + gone)
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old.format(n=n))
    said = _fill(gone, n, 1)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    decision = decide(after, reading_of(said), [before])
    assert (decision.action, decision.targets) == ("retract", ("aaaaaaaaaaaa",)), said


@pytest.mark.parametrize(("gone", "reason"), list(itertools.product(GONE[:5], REASONS)))
def test_the_end_stands_as_history_beside_a_reason_or_an_aside(gone: str, reason: str) -> None:
    n, m = seeded(gone + reason), seeded(reason + gone)
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), f"our tabby {n} is 12")
    said = f"{_fill(gone, n, 2)}{reason}. A rabbit called {m} has his corner now"
    bullet = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    now, record = told_ends(bullet, reading_of(said), [before])
    assert record is not None and now is not None, said
    assert n in record.text and m not in record.text, record
    assert m in now.text and n not in now.text, now
