"""Arabic work at a place named by its kind ("بمدرسة الفرير", "في بنك
الرياض"): after a verb of working in any dialect, in a job told as new, or
as where a move went (a transfer, not a home). A place of work met by chance
is none. A new workplace replaces the old. Names are made up."""

from __future__ import annotations

import itertools
import random
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet
from tests.made_up import arabic_noun_name

PLACES = ["مدرسة", "شركة", "مستشفى", "بنك", "منظمة", "جامعة"]
WORKING = ["بشتغل أستاذة رياضيات ب{i} {n}", "أشتغل مهندس في {i} {n}", "شغال محاسب في {i} {n}",
           "موظفة ب{i} {n} من سنتين"]  # fmt: skip
NEW_JOB = ["صار عندي شغل جديد! منسقة برامج ب{i} {n}، بلّشت من يومين", "وظيفتي الجديدة في {i} {n}"]
MOVED = ["انتقلتُ رسمياً إلى {i} {n}", "نقلوني على {i} {n} الشهر ده"]
MET = ["قابلت صديقي ب{i} {n}", "رحت مع ابني إلى {i} {n}"]


def _fill(frame: str, place: str, rng: random.Random) -> tuple[str, str]:
    name = arabic_noun_name(rng)
    return frame.format(i=place, n=name), f"{place} {name}"


def _action(old: str, said: str) -> str:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    return decide(after, reading_of(said), [before]).action


@pytest.mark.parametrize(
    ("frame", "place"), list(itertools.product([*WORKING, *NEW_JOB, *MOVED], PLACES))
)
def test_work_at_a_place_named_by_its_kind_is_the_employer(frame: str, place: str) -> None:
    said, where = _fill(frame, place, random.Random(frame + place))
    read = reading_of(said)
    assert (read.slot, read.value) == ("employer", where), said


@pytest.mark.parametrize(("frame", "place"), list(itertools.product(MET, PLACES)))
def test_a_place_of_work_met_by_chance_is_no_employer_and_no_home(frame: str, place: str) -> None:
    said, _ = _fill(frame, place, random.Random(frame + place))
    assert reading_of(said).slot not in ("employer", "home"), said


@pytest.mark.parametrize(("old", "new"), list(itertools.product(WORKING, NEW_JOB + MOVED)))
def test_a_new_workplace_replaces_the_old(old: str, new: str) -> None:
    rng = random.Random(old + new)
    before, _ = _fill(old, rng.choice(PLACES), rng)
    after, _ = _fill(new, rng.choice(PLACES), rng)
    assert _action(before, after) == "update", (before, after)
