"""A new amount of the same measure replaces the old one when the statement says
it changed ("been taking 50mg X" then "the GP bumped my dose up to 100mg");
another thing in the same unit, the same amount again, a time of day, or an
amount told with no change leave the old fact current. English and Arabic;
things are made up."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate_all
from substrate.consolidation.counts import frame_of, recounts, remeasures
from substrate.index import SearchIndex
from substrate.pages import FactBullet, fact_bullets
from tests.made_up import arabic_name, made_up

# (unit as written after the number, an old frame, a new frame that says it changed)
OLDS = [
    "been taking {a}{u} {x} since the spring",
    "I'm on {a}{u} of {x} every morning",
    "{x}, {a}{u} a day, for my blood pressure",
]
NEWS = [
    "the GP bumped my dose up to {b}{u} from today",
    "doctor has increased it to {b}{u}",
    "they've lowered the dose to {b}{u}, fingers crossed",
    "I'm on {b}{u} now",
]
UNITS = ["mg", "ml", "mcg", " mg"]
AMOUNTS = [("50", "100"), ("10", "5"), ("2.5", "5")]


def at(month: int, day: int = 1) -> datetime:
    return datetime(2025, month, day, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(("old", "new"), list(itertools.product(OLDS, NEWS)))
def test_a_new_amount_said_to_change_replaces_the_old(old: str, new: str) -> None:
    rng = random.Random(old + new)
    for u, (a, b) in itertools.product(UNITS, AMOUNTS):
        x = made_up(rng)
        assert remeasures(old.format(a=a, u=u, x=x), new.format(b=b, u=u)), (old, new, u)


@pytest.mark.parametrize("old", OLDS)
def test_no_change_told_another_unit_or_the_same_amount_replaces_nothing(old: str) -> None:
    rng = random.Random(old)
    x, y = made_up(rng), made_up(rng)
    said = old.format(a="50", u="mg", x=x)
    assert not remeasures(said, f"I take 100mg of {y} at night")  # another thing, no change
    assert not remeasures(said, "the GP bumped my dose up to 100ml")  # another unit
    assert not remeasures(said, "the GP bumped my dose up to 50mg")  # the same amount
    assert not remeasures(said, "I moved the alarm up to 6am")  # a time of day


@pytest.mark.parametrize("money", ["£1,100", "$1100", "€1.100"])
def test_money_is_a_measure_by_its_currency(money: str) -> None:
    assert ("£" in money) == (("1100", "£") in frame_of(f"rent is {money} a month").measures)
    assert remeasures("our rent is £1,100 a month", "the landlord put the rent up to £1,250")


def test_ordinals_and_years_are_not_amounts() -> None:
    assert not frame_of("my 3rd year of the 2019 course").measures
    assert recounts("I've added 17 postcards since March", "I've added 25 postcards since March")


AR_OLDS = ["أتناول {x} {a} ملغ كل صباح", "آخذ {a} ملغ من {x} يومياً"]
AR_NEWS = [
    "رفع الطبيب الجرعة إلى {b} ملغ",
    "الدكتور زود الجرعة ل{b} ملغ",
    "خفضنا الجرعة إلى {b} ملغ",
]


@pytest.mark.parametrize(("old", "new"), list(itertools.product(AR_OLDS, AR_NEWS)))
def test_an_arabic_new_amount_replaces_the_old(old: str, new: str) -> None:
    rng = random.Random(old + new)
    for a, b in (("٥", "١٠"), ("20", "40"), ("١٠", "٥")):
        x = arabic_name(rng)
        assert remeasures(old.format(a=a, x=x), new.format(b=b)), (old, new)
        assert not remeasures(old.format(a=a, x=x), f"أتناول {b} ملغ من {arabic_name(rng)}")


def bullets(settings: Settings) -> list[FactBullet]:
    root = settings.workspace.concepts_dir
    return [b for path in sorted(root.rglob("*.md")) for b in fact_bullets(path.read_text())]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("been taking 50mg {x} since the spring", "the GP bumped my dose up to 100mg from today"),
        ("أتناول {x} ٥ ملغ كل صباح", "رفع الطبيب الجرعة إلى ١٠ ملغ"),
    ],
)
def test_the_newer_amount_supersedes_across_pages(
    settings: Settings, index: SearchIndex, old: str, new: str
) -> None:
    rng = random.Random(old)
    x = arabic_name(rng) if "ملغ" in old else made_up(rng)
    first = remember(settings, old.format(x=x), now=at(1)).id
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    second = remember(settings, new, now=at(4)).id
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    status = {b.entry_id: b.status for b in bullets(settings)}
    assert status == {first: "superseded", second: "current"}, bullets(settings)
