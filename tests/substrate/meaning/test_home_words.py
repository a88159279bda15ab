"""A home named by its bedrooms ("a two-bed in Astoria", "a 3-bedroom in
Hove") is a home, one bed bought is not; and a sentence opened by a common
noun ("Lease was up so we've relocated to …") is the person's own move, not a
statement about someone called Lease; what the person lives on ("Diet Coke") is
no home, the street they live on is. A newer home replaces the older.
Places are made up."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.meaning import read_text
from substrate.pages import FactBullet
from tests.made_up import seeded

COUNTS = ["two", "three", "2", "4"]
ROOMS = ["bed", "bedroom"]
FRAMES = ["we rent a {c}-{r} in {p}", "I live in a {c}-{r} in {p}", "We've got a {c}-{r} in {p}"]
OPENERS = ["Lease", "Tenancy", "Contract", "Rent"]
ENDS = ["was up", "ran out", "ended"]
MOVES = ["we've relocated to {p}", "we moved to {p}", "I've moved into a flat in {p}"]


@pytest.mark.parametrize(("count", "room", "frame"), list(itertools.product(COUNTS, ROOMS, FRAMES)))
def test_a_home_named_by_its_bedrooms_is_a_home(count: str, room: str, frame: str) -> None:
    place = seeded(count + room + frame)
    read = reading_of(frame.format(c=count, r=room, p=place))
    assert read.slot == "home", (frame, read)
    assert read.value is not None and place.lower() in read.value


@pytest.mark.parametrize(
    "said", ["I bought two beds for the spare room", "we need a bed in the spare room"]
)
def test_beds_are_no_home(said: str) -> None:
    assert reading_of(said).slot != "home"


@pytest.mark.parametrize(("opener", "end", "move"), list(itertools.product(OPENERS, ENDS, MOVES)))
def test_a_common_noun_opening_the_persons_move_is_no_one_named(
    opener: str, end: str, move: str
) -> None:
    place = seeded(opener + end + move)
    read = read_text(f"{opener} {end} so {move.format(p=place)}")
    assert read.subject.kind == "me", read.subject
    assert read.slot.slot == "home" and place.lower() in (read.slot.value or "")


@pytest.mark.parametrize("frame", FRAMES)
def test_a_move_replaces_a_home_named_by_its_bedrooms(frame: str) -> None:
    old = frame.format(c="two", r="bed", p=seeded(frame))
    said = f"Lease was up so we've relocated to {seeded(frame + 'new')}"
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    decision = decide(after, reading_of(said), [before])
    assert (decision.action, decision.targets) == ("update", ("aaaaaaaaaaaa",))


CONSUMED = ["Diet Coke", "Red Bull", "Coca-Cola", "Monster Energy"]
STREETS = ["{p} Road", "{p} Street", "{p} Lane", "{p} Crescent"]


@pytest.mark.parametrize("thing", CONSUMED)
def test_what_the_person_lives_on_is_no_home(thing: str) -> None:
    for said in (f"I live on {thing}", f"Honestly I live on {thing}, like three cans a day"):
        assert reading_of(said).slot != "home", said


@pytest.mark.parametrize("street", STREETS)
def test_the_street_the_person_lives_on_is_their_home(street: str) -> None:
    name = street.format(p=seeded(street))
    read = reading_of(f"I live on {name}")
    assert (read.slot, read.value) == ("home", name.lower())
