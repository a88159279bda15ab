"""The person's new vet replaces the vet an animal of theirs went to, filed on
that animal's page: only an animal has a vet. A vet named in the plural ("…
Vets") is a vet. The person's own GP is left alone, and so is every value of
theirs when someone else's changes. Names are made up."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate_all
from substrate.consolidation.lifecycle import reading_of
from substrate.index import SearchIndex
from substrate.pages import FactBullet, fact_bullets
from tests.made_up import seeded

GOES = ["{p} goes to {v} on Mill Lane", "{p} is registered at {v}"]
VETS = ["{n} Vets", "{n} Veterinary Clinic", "{n} Animal Hospital"]
NEWS = ["the vet we use now is {v}, they do evening appointments", "We've moved to {v} for the vet"]


def at(month: int) -> datetime:
    return datetime(2025, month, 1, 10, 0, tzinfo=UTC)


def bullets(settings: Settings) -> list[FactBullet]:
    root = settings.workspace.concepts_dir
    return [b for p in sorted(root.rglob("*.md")) for b in fact_bullets(p.read_text())]


@pytest.mark.parametrize("vet", VETS)
def test_a_vet_named_in_any_way_is_a_vet(vet: str) -> None:
    name = vet.format(n=seeded(vet))
    assert reading_of(f"{seeded(name)} goes to {name}").slot == "provider:vet"


@pytest.mark.parametrize(("goes", "new"), list(itertools.product(GOES, NEWS)))
def test_the_persons_new_vet_replaces_the_one_on_their_animals_page(
    settings: Settings, index: SearchIndex, goes: str, new: str
) -> None:
    pet, old_vet = seeded(goes + new), VETS[0].format(n=seeded(new + goes))
    new_vet = VETS[2].format(n=seeded(goes))
    remember(settings, goes.format(p=pet, v=old_vet), now=at(1))
    remember(settings, f"I'm registered with Dr {seeded(pet)} at the Elm Surgery", now=at(1))
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    remember(settings, new.format(v=new_vet), now=at(3))
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    facts = bullets(settings)
    assert not [b for b in facts if old_vet in b.text and b.current], facts
    assert [b for b in facts if new_vet in b.text and b.current], facts
    assert [b for b in facts if "Elm Surgery" in b.text and b.current], facts


THEIRS = ["Uncle {n}'s bought himself a {c}", "My sister {n} has just moved to {p}"]
MINE = ["I drive a {c}", "We live in {p}"]


@pytest.mark.parametrize(("theirs", "mine"), list(zip(THEIRS, MINE, strict=True)))
def test_someone_elses_new_value_never_ends_the_persons_own(
    settings: Settings, index: SearchIndex, theirs: str, mine: str
) -> None:
    for i in range(3):
        n, place, other = seeded(f"{theirs}{i}"), seeded(f"{mine}{i}"), seeded(f"{i}{mine}")
        remember(settings, mine.format(c=f"Skoda {place}", p=place), now=at(1))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        remember(settings, theirs.format(n=n, c=f"Audi {other}", p=other), now=at(3))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        kept = [b for b in bullets(settings) if place in b.text and b.current]
        assert kept, bullets(settings)
