"""Everyday wordings supersede: starting a job, buying a house and moving in, a
preference told again in other words, in English and Arabic; and a relative
time is dated by the moment it was said."""

from __future__ import annotations

from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.consolidation.when import with_dates, without_dates
from substrate.pages import FactBullet


def action(old: str, new: str) -> str:
    before = FactBullet("aaaaaaaaaaaa", date(2024, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), new)
    return decide(after, reading_of(new), [before]).action


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "I work at Initech as an analyst.",
            "I started a new job as a product manager at Acme Robotics.",
        ),
        ("I live in Didsbury.", "We bought a house in Salford and moved in this week."),
        ("I live in Leeds.", "We just rented a flat in Bristol."),
        ("Prefer dark mode, honestly.", "Prefer light mode now."),
        ("I prefer light mode.", "Prefer light mode, honestly."),  # told again: one current
        ("أسكن في القاهرة.", "اشترينا شقة في دبي."),
    ],
)
def test_an_everyday_wording_supersedes_the_old_value(old: str, new: str) -> None:
    assert action(old, new) == "update"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Leeds.", "I started a new job at Acme Robotics."),
        ("I work at Initech.", "We bought a house in Salford."),
        ("I prefer dark mode.", "I prefer tea to coffee."),
    ],
)
def test_a_different_slot_supersedes_nothing(old: str, new: str) -> None:
    assert action(old, new) == "add"


@pytest.mark.parametrize(
    ("said", "dated"),
    [
        ("I started learning the cello last month.", "last month (February 2024)"),
        ("I moved here two weeks ago.", "two weeks ago (25 February 2024)"),
        ("I adopted a cat yesterday.", "yesterday (9 March 2024)"),
        ("I quit smoking last year (2023).", "last year (2023)."),
        ("بدأت العمل الشهر الماضي.", "الشهر الماضي (فبراير 2024)"),
        ("انتقلت منذ 3 أشهر.", "منذ 3 أشهر (ديسمبر 2023)"),
    ],
)
def test_a_relative_time_is_dated_by_when_it_was_said(said: str, dated: str) -> None:
    assert dated in with_dates(said, date(2024, 3, 10))
    assert with_dates(with_dates(said, date(2024, 3, 10)), date(2025, 1, 1)).count("(") == 1


def test_a_newer_count_of_the_same_thing_replaces_the_older() -> None:
    old = "I've added 17 new postcards to my collection since I started collecting again."
    new = "I just realized I've added 25 new postcards to my collection since I started again."
    assert action(old, new) == "update"
    old = "I've completed 4 projects since starting painting classes."
    assert (
        action(old, "I just finished my 5th project since starting painting classes.") == "update"
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I ran 5 miles on Monday.", "I ran 3 miles on Tuesday."),  # two runs, not a recount
        ("I have two cats at home.", "I have two cats at home."),  # the same count
        ("My sister has 3 kids.", "I bought 3 new books about kids."),
    ],
)
def test_events_and_the_same_count_replace_nothing(old: str, new: str) -> None:
    assert action(old, new) == "add"


@pytest.mark.parametrize(
    "said",
    [
        "I started learning the cello last month.",
        "I moved here two weeks ago and yesterday I quit.",
        "انتقلت منذ 3 أشهر.",
        "Nothing relative here (2019).",
    ],
)
def test_the_added_dates_come_out_again(said: str) -> None:
    assert without_dates(with_dates(said, date(2024, 3, 10))) == said


def test_a_captured_fact_replaces_a_remembered_one_only_in_the_persons_own_words() -> None:
    old = FactBullet("aaaaaaaaaaaa", date(2024, 1, 1), "I live in Leeds.", slot="home")
    direct = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), "I moved to Salford.", "captured")
    drawn = FactBullet(
        "cccccccccccc", date(2024, 2, 1), "All, quick update: I moved to Berlin.", "captured"
    )
    assert decide(direct, reading_of(direct.text), [old]).action == "update"
    assert decide(drawn, reading_of(drawn.text), [old]).action == "add"
    remembered = FactBullet("dddddddddddd", date(2024, 2, 1), drawn.text)
    assert decide(remembered, reading_of(drawn.text), [old]).action == "update"
