"""A diet said without "I'm": a note that opens with it, "it's X for me now",
none at all, or foods a diet leaves out eaten again (English and Arabic); a
diet's word on a dish ("vegan cheese", "keto recipes") is no diet. A newer
diet replaces the older."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet

DIETS = ["vegan", "vegetarian", "pescatarian", "gluten-free"]
SAID = [
    "{D} since 2019",
    "Fully {d} since the spring",
    "{D}, mostly",
    "it's strictly {d} for me now",
]
AGAIN = ["I eat {f} again", "I've started eating {f} again", "I'm eating {f} and {g} again"]
FOODS = ["meat", "fish", "dairy", "eggs", "cheese", "chicken"]
DISHES = ["{d} cheese is awful", "{D} recipes are boring", "the {d} place on Mill Lane shut"]


def _action(old: str, said: str) -> str:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    return decide(after, reading_of(said), [before]).action


def _fill(frame: str, diet: str) -> str:
    return frame.format(d=diet, D=diet.capitalize())


@pytest.mark.parametrize(("frame", "diet"), list(itertools.product(SAID, DIETS)))
def test_a_diet_said_without_im_is_the_diet(frame: str, diet: str) -> None:
    read = reading_of(_fill(frame, diet))
    assert (read.slot, read.value) == ("diet", diet)


@pytest.mark.parametrize(("frame", "diet"), list(itertools.product(DISHES, DIETS)))
def test_a_diets_word_on_a_dish_is_no_diet(frame: str, diet: str) -> None:
    assert reading_of(_fill(frame, diet)).slot != "diet"


@pytest.mark.parametrize(("frame", "food"), list(itertools.product(AGAIN, FOODS)))
def test_foods_eaten_again_end_the_diet_that_left_them_out(frame: str, food: str) -> None:
    said = frame.format(f=food, g="eggs" if food != "eggs" else "fish")
    assert reading_of(said).slot == "diet"
    for diet in DIETS:
        assert _action(f"Fully {diet} since 2021", said) == "update"
    assert (
        _action("no dietary restrictions, I'll eat anything", f"it's {DIETS[0]} for me now")
        == "update"
    )


@pytest.mark.parametrize("food", ["فراخ", "سمك", "لحمة", "بيض"])
def test_an_arabic_return_to_foods_ends_the_diet(food: str) -> None:
    said = f"رجعت آكل {food} والحمد لله"
    assert reading_of(said).slot == "diet"
    assert _action("أنا نباتية بقالي سنتين", said) == "update"
