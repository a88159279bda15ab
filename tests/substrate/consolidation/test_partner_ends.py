"""Being engaged or bound to someone names the partner in Arabic as in
English, and ending the bond by its own name ("فسخت الخطوبة", "we called off
the engagement") ends the newest partner fact. Names are made up per case."""

from __future__ import annotations

import random
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet
from tests.made_up import arabic_name, names

BOUND = ["أنا مخطوبة ل{n}", "أنا مخطوب ل{n}", "أنا مرتبط بواحدة اسمها {n}", "مرتبطة ب{n} من سنة"]
ENDS_AR = ["فسخت الخطوبة، ربنا يكتب الخير", "انتهى الارتباط من شهر", "فسخنا الخطوبة أمس"]
ENDS_EN = ["We called off the engagement last week", "I ended the relationship in May"]


def _ends(old: str, said: str) -> bool:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    return decide(after, reading_of(said), [before]).action == "retract"


@pytest.mark.parametrize("frame", BOUND)
def test_being_engaged_or_bound_to_someone_names_the_partner(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        name = arabic_name(rng)
        reading = reading_of(frame.format(n=name))
        assert reading.slot == "partner" and reading.value == name, (frame, name, reading)


@pytest.mark.parametrize("said", ENDS_AR)
def test_ending_the_bond_by_its_name_ends_the_partner_fact_arabic(said: str) -> None:
    rng = random.Random(said)
    for frame in BOUND:
        old = frame.format(n=arabic_name(rng))
        assert _ends(old, said), (old, said)


@pytest.mark.parametrize("said", ENDS_EN)
def test_ending_the_bond_by_its_name_ends_the_partner_fact_english(said: str) -> None:
    for name in names(3, len(said)):
        assert _ends(f"I'm engaged to {name}", said), (name, said)
        assert _ends(f"My boyfriend is {name}", said), (name, said)


def test_a_bond_to_a_thing_with_the_article_names_no_partner() -> None:
    rng = random.Random(7)
    for _ in range(4):
        said = f"أنا مرتبط بال{arabic_name(rng)} هالأيام"
        assert reading_of(said).slot != "partner", said


@pytest.mark.parametrize("verb", ["ماتت", "مات", "انتهى", "انتهت"])
def test_an_arabic_intransitive_end_said_verb_first_names_what_follows(verb: str) -> None:
    from substrate.meaning.arabic import arabic_ends

    rng = random.Random(verb)
    for _ in range(4):
        name = arabic_name(rng)
        assert name in " ".join(arabic_ends(f"{verb} {name} من شهر")), (verb, name)
        assert name in " ".join(arabic_ends(f"{name} {verb} من شهر")), (verb, name)
