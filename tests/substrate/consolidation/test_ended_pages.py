"""An end reaches the facts that name what ended wherever they were filed:
every current fact naming a named thing on its page, the page titled by it,
and the person's weekly routines (filed as theirs, not as a person named for
the day). Generated with made-up names, end to end through the filer."""

from __future__ import annotations

from datetime import timedelta

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate_all
from substrate.index import SearchIndex
from substrate.pages import fact_bullets, load_page_index
from tests.made_up import names
from tests.substrate.consolidation.conftest import DAY


def made_up(seed: int) -> str:
    return names(1, seed)[0]


def facts(settings: Settings) -> list[tuple[str, str, bool]]:
    index = load_page_index(settings.workspace)
    out = []
    for entry in index.entries.values():
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        out += [(entry.slug, b.text, b.current) for b in fact_bullets(text)]
    return out


def file_all(settings: Settings, index: SearchIndex) -> None:
    index.maintain()
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())


def current_naming(settings: Settings, name: str) -> list[str]:
    """Current facts that name `name`, other than the statement that ended it."""
    return [t for _, t, now in facts(settings) if now and name in t]


def later(settings: Settings, text: str) -> None:
    remember(settings, text, now=DAY + timedelta(days=30))


BEINGS = [
    ("{n} sleeps on the radiator all day", "{n} loves tuna", "{n} died this morning"),
    ("Our old boy {n} is 14 now", "{n} sleeps by the back door", "{n} passed away on Sunday"),
    ("{n} is our rescue greyhound", "{n} hates the hoover", "We lost {n} last night"),
]


@pytest.mark.parametrize("said", BEINGS)
def test_a_named_end_ends_every_current_fact_that_names_it(
    settings: Settings, index: SearchIndex, said: tuple[str, str, str]
) -> None:
    name = made_up(len(said[0]))
    for n, text in enumerate(said[:2]):
        remember(settings, text.format(n=name), now=DAY + timedelta(minutes=n))
    file_all(settings, index)
    later(settings, said[2].format(n=name))
    file_all(settings, index)
    ended = said[2].format(n=name)
    assert [t for t in current_naming(settings, name) if t != ended] == [], facts(settings)


GOODBYES = ["We had to say goodbye to {n} this morning.", "Said a last farewell to {n} today."]


@pytest.mark.parametrize("goodbye", GOODBYES)
def test_an_end_reaches_the_page_titled_by_what_ended(
    settings: Settings, index: SearchIndex, goodbye: str
) -> None:
    name = made_up(len(goodbye))
    remember(settings, f"{name} is 14 now, grey muzzle and all", now=DAY)
    remember(settings, "We also have a rabbit called Clover", now=DAY + timedelta(minutes=1))
    file_all(settings, index)
    assert any(name in t for _, t, _ in facts(settings))
    said = goodbye.format(n=name)
    later(settings, said)
    file_all(settings, index)
    assert [t for t in current_naming(settings, name) if t != said] == [], facts(settings)
    assert current_naming(settings, "Clover"), "another being's facts stay"


def test_a_breakup_ends_the_partner_fact_on_the_partners_page(
    settings: Settings, index: SearchIndex
) -> None:
    for seed in range(3):
        name = made_up(100 + seed)
        remember(settings, f"My boyfriend {name} works at Deloitte", now=DAY)
        file_all(settings, index)
        said = f"{name} and I broke up last weekend"
        later(settings, said)
        file_all(settings, index)
        assert [t for t in current_naming(settings, name) if t != said] == [], facts(settings)


DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()


@pytest.mark.parametrize("day", DAYS[::2])
def test_a_weekly_routine_is_the_persons_and_its_end_reaches_it(
    settings: Settings, index: SearchIndex, day: str
) -> None:
    place = made_up(len(day) * 7)
    remember(settings, f"{day} nights = bowling league at {place} Lanes", now=DAY)
    remember(settings, "every spring I help coach Little League", now=DAY + timedelta(minutes=1))
    file_all(settings, index)
    assert not any(slug.endswith(day.lower()) for slug, _, _ in facts(settings))
    later(settings, "Quit the bowling league, the guys were way too intense")
    file_all(settings, index)
    assert not [t for _, t, now in facts(settings) if now and place in t], facts(settings)
    assert current_naming(settings, "Little League")
