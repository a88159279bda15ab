"""The bond by itself, without a partner's name: being single ends any partner
fact; a bond told without a name ("we got engaged", "تزوجت الشهر اللي فات")
ends being single and never the partner a fact names; a named partner ends
being single but not a bond. English and Arabic frames are combined per
case; names are made up."""

from __future__ import annotations

import itertools
import random
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet
from tests.made_up import arabic_name, made_up

SINGLE = [
    "Honestly? single and not looking",
    "I'm single again",
    "So I'm single now.",
    "single, and happy that way",
    "أنا أعزب وما أفكر بالزواج",
    "لسه عزباء والحمد لله",
]
BONDS = [
    "we're officially together",
    "We got engaged last night!!",
    "we're a couple now",
    "I just got married!",
    "تزوجت الشهر اللي فات، الحمد لله",
    "انخطبت امبارح",
]
NAMED = ["My boyfriend is {n}", "my wife's name is {n}", "I'm seeing {n}", "زوجتي {a}"]


def _named(frame: str, rng: random.Random) -> str:
    return frame.format(n=made_up(rng), a=arabic_name(rng))


def _action(old: str, said: str) -> str:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    return decide(after, reading_of(said), [before]).action


@pytest.mark.parametrize("said", SINGLE + BONDS)
def test_the_bond_by_itself_is_a_partner_value(said: str) -> None:
    assert reading_of(said).slot == "partner", said


@pytest.mark.parametrize(("single", "bond"), list(itertools.product(SINGLE, BONDS)))
def test_a_bond_ends_being_single(single: str, bond: str) -> None:
    assert _action(single, bond) == "update"


@pytest.mark.parametrize(("frame", "single"), list(itertools.product(NAMED, SINGLE)))
def test_being_single_ends_a_named_partner_and_a_named_partner_ends_being_single(
    frame: str, single: str
) -> None:
    rng = random.Random(frame + single)
    assert _action(_named(frame, rng), single) == "update"
    assert _action(single, _named(frame, rng)) == "update"


@pytest.mark.parametrize(("frame", "bond"), list(itertools.product(NAMED, BONDS)))
def test_a_bond_and_a_named_partner_stand_together(frame: str, bond: str) -> None:
    rng = random.Random(frame + bond)
    assert _action(_named(frame, rng), bond) == "add"
    assert _action(bond, _named(frame, rng)) == "add"


@pytest.mark.parametrize(
    "said",
    ["a single room at the Grand", "every single day I run", "I booked a single ticket",
     "single-use plastics drive me mad"],
)  # fmt: skip
def test_single_as_a_word_of_another_sense_is_no_bond(said: str) -> None:
    assert reading_of(said).slot != "partner"
