"""The commute read by structure: a way of travelling with work as its goal, a
means of transport taken there, a verb that is a commute, the person's commute
as a copula's subject, or a named line taken along a route every day. A
newer way replaces the older; a trip told as past, negated or wished, someone
else's, or one that does not go to work is no commute."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.meaning import read_text
from substrate.meaning.commute import SLOT
from substrate.pages import FactBullet

GOALS = ["to work", "into work", "to the office", "into the office", "to campus"]
WAYS = ["cycle", "walk", "drive", "jog"]
TAKEN = ["the {n} bus", "the 7:15 train", "the tube", "the ferry", "a tram"]
NUMBERS = ["12", "38", "147"]
OPENINGS = ["I", "These days I", "Most days I", "We"]
LINES = ["Thameslink", "Metrolink", "Caltrain", "Coastliner"]
PLACES = [("Dunmere", "Kelvingrove"), ("Ashcombe", "Port Adley"), ("Wexcote", "Holme Cross")]
COMMUTES = ["car-sharing", "carpooling"]


def _fill(frame: str, n: str = "38") -> str:
    return frame.format(n=n)


@pytest.mark.parametrize(("opening", "way", "goal"), list(itertools.product(OPENINGS, WAYS, GOALS)))
def test_a_way_of_travelling_to_work_is_the_commute(opening: str, way: str, goal: str) -> None:
    read = reading_of(f"{opening} {way} {goal}")
    assert (read.slot, read.value) == (SLOT, way)


@pytest.mark.parametrize(
    ("taken", "goal", "n"), list(itertools.product(TAKEN, GOALS[:3], NUMBERS[:2]))
)
def test_transport_taken_to_work_is_the_commute(taken: str, goal: str, n: str) -> None:
    ridden = _fill(taken, n)
    for said in (f"I take {ridden} {goal}", f"it's {ridden} {goal} now"):
        read = reading_of(said)
        assert read.slot == SLOT, said
        assert read.value and read.value.split()[-1] == ridden.split()[-1]


@pytest.mark.parametrize(("line", "places"), list(itertools.product(LINES, PLACES)))
def test_a_named_line_taken_along_a_route_every_day_is_the_commute(
    line: str, places: tuple[str, str]
) -> None:
    start, end = places
    read = reading_of(f"I take {line} from {start} into {end} every day")
    assert (read.slot, read.value) == (SLOT, line.lower())
    # once, with no day said, a trip is not a commute
    assert reading_of(f"I took {line} from {start} into {end}").slot != SLOT


@pytest.mark.parametrize(
    ("who", "way"), list(itertools.product(["Priya", "my neighbour"], COMMUTES))
)
def test_a_verb_or_noun_that_is_a_commute_says_one(who: str, way: str) -> None:
    read = reading_of(f"{who.capitalize()} and I are {way} now")
    assert read.slot == SLOT


@pytest.mark.parametrize("rest", ["twelve steps to the spare room", "a 40 minute drive"])
def test_my_commute_is_names_the_commute(rest: str) -> None:
    read = reading_of(f"my commute is {rest}")
    assert read.slot == SLOT


@pytest.mark.parametrize(
    "said",
    [
        "I drove to the office yesterday",
        "I don't cycle to work anymore since the accident",
        "I might cycle to work in the summer",
        "I walk the dog every day",
        "I took the train to Leeds",
        "I drive a blue van",
    ],
)
def test_what_is_no_commute_is_not_read_as_one(said: str) -> None:
    assert reading_of(said).slot != SLOT


@pytest.mark.parametrize("who", ["Tom", "Priya", "Dad"])
def test_someone_elses_commute_is_theirs_not_the_persons(who: str) -> None:
    read = read_text(f"{who} drives to work")
    assert read.subject.kind != "me"


@pytest.mark.parametrize(
    ("old", "new"),
    list(
        itertools.product(
            [f"I {w} to work, about 25 mins" for w in WAYS[:3]],
            ["it's the {n} bus into work now", "my commute is ten minutes on foot now"],
        )
    ),
)
def test_a_newer_commute_replaces_the_older(old: str, new: str) -> None:
    said = _fill(new)
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    decision = decide(after, reading_of(said), [before])
    assert (decision.action, decision.targets) == ("update", ("aaaaaaaaaaaa",))
