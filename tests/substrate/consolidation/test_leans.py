"""Two statements the family head leans to one habit's family (more likely
than all the others together, under its sure threshold) pair up: the newer
ends the newest older one when it says something took another's place, and
adds beside it when it does not; a lean never pairs across families, with a
fact dated after it, or for the families the rules read well (home, work).
With the shipped head on generated drink changes, then the rule itself on
slots as the head marks them."""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any

import pytest

from substrate.consolidation.lifecycle import decide
from substrate.meaning import read_text
from substrate.meaning.slots import SlotReading
from substrate.meaning.typing import LEAN_FAMILIES, LEANS, FamilyHead, leans, typed
from substrate.pages import FactBullet

DRINKS = ["karak", "yerba mate", "masala chai", "kombucha", "cold brew", "rooibos"]
HABITS = [
    "every morning it's {d} from the kiosk by the station",
    "I get through three mugs of {d} a day",
    "{d} first thing, every single day",
]
CHANGES = [
    "trying to cut sugar so my morning drink is {d} now",
    "it's {d} only now, the caffeine was wrecking my sleep",
    "gave up the old stuff, {d} every morning these days",
]
LEANED = "lean:pref:drink"


@pytest.fixture(scope="module")
def head() -> FamilyHead:
    from substrate.index.use_embedder import shared_use

    return FamilyHead(shared_use().embed_query)


def _bullet(entry: str, day: int, text: str, slot: str | None) -> FactBullet:
    return FactBullet(entry, date(2025, day, 1), text, slot=slot)


def _read(text: str, head: FamilyHead) -> SlotReading:
    return typed(read_text(text), head)


@pytest.mark.slow
def test_drink_changes_the_head_leans_to_end_the_habit_they_replace(head: FamilyHead) -> None:
    pairs = [
        (h.format(d=old), c.format(d=new))
        for h, c in itertools.product(HABITS, CHANGES)
        for old, new in zip(DRINKS, DRINKS[1:] + DRINKS[:1], strict=True)
    ]
    paired = 0
    for old, new in pairs:
        before, after = _read(old, head), _read(new, head)
        if not (leans(before.slot) and before.slot == after.slot):
            continue  # the head is sure, or leans elsewhere: not this mechanism
        paired += 1
        facts = [_bullet("aaaaaaaaaaaa", 1, old, before.slot)]
        decision = decide(_bullet("bbbbbbbbbbbb", 3, new, None), after, facts)
        assert (decision.action, decision.targets) == ("update", ("aaaaaaaaaaaa",)), (old, new)
    # most pairs the head is sure of or the rules read; enough lean both ways
    assert paired >= len(DRINKS), f"the head leaned both ways on {paired} of {len(pairs)}"


def _leaning(change: bool, slot: str = LEANED) -> SlotReading:
    return SlotReading(slot, None, change=change)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_lean_with_change_words_ends_the_newest_older_lean_of_its_family(n: int) -> None:
    facts = [_bullet(f"{i:012d}", i + 1, f"drink habit {i}", LEANED) for i in range(n)]
    decision = decide(_bullet("bbbbbbbbbbbb", 9, "it's tea now", None), _leaning(True), facts)
    assert (decision.action, decision.targets) == ("update", (f"{n - 1:012d}",))


def test_a_lean_without_change_words_adds_beside() -> None:
    facts = [_bullet("aaaaaaaaaaaa", 1, "drink habit", LEANED)]
    decision = decide(_bullet("bbbbbbbbbbbb", 3, "had a tea", None), _leaning(False), facts)
    assert decision.action == "add"


@pytest.mark.parametrize(
    ("old_slot", "day"),
    [("lean:diet", 1), ("pref:drink", 1), (None, 1), (LEANED, 5)],
)
def test_a_lean_pairs_only_with_an_older_lean_of_its_family(old_slot: Any, day: int) -> None:
    facts = [_bullet("aaaaaaaaaaaa", day, "drink habit", old_slot)]
    decision = decide(_bullet("bbbbbbbbbbbb", 3, "it's tea now", None), _leaning(True), facts)
    assert decision.action == "add", (old_slot, day)


def test_the_families_a_lean_may_mark_are_the_habits() -> None:
    assert {"home", "work"}.isdisjoint(LEAN_FAMILIES)
    assert LEANS == "lean:" and leans(LEANED) and not leans("pref:drink") and not leans(None)
