"""The words that told an end stand as history beside the fact they ended: a
statement that ends a fact and tells a new value keeps the new value current
and files its end as a record of its own (`status:ended`, the statement's id
with `-1`); one that is all end is the record whole; forgetting the statement
forgets both parts and gives the ended fact back. Names, kinds and frames
are combined per case; names are made up."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate, consolidate_all
from substrate.consolidation.ends import told_ends
from substrate.consolidation.lifecycle import reading_of
from substrate.forgetting import forget
from substrate.index import SearchIndex
from substrate.pages import FactBullet, fact_bullets
from substrate.pages.fact_section import with_facts
from substrate.sessions import SessionLog, open_session_log
from tests.made_up import arabic_name, made_up

OLDS = ["I've got a tabby called {n}", "We have a beagle called {n}", "Our cat {n} is 12"]
ENDS = [
    "We lost {n} in March.",
    "rehomed {n} with a farm family, he needed space to run.",
    "We had to say goodbye to {n} on Sunday.",
]
NEWS = [
    "Last week we brought home a greyhound called {m} from the rescue",
    "There's a dachshund called {m} on my sofa now",
]


def at(month: int, day: int = 1) -> datetime:
    return datetime(2025, month, day, 10, 0, tzinfo=UTC)


def bullets(settings: Settings) -> list[FactBullet]:
    root = settings.workspace.concepts_dir
    return [b for path in sorted(root.rglob("*.md")) for b in fact_bullets(path.read_text())]


def naming(settings: Settings, name: str) -> list[FactBullet]:
    return [b for b in bullets(settings) if name in b.text]


@pytest.fixture
def log(settings: Settings) -> Iterator[SessionLog]:
    opened = open_session_log(settings.workspace)
    yield opened
    opened.close()


@pytest.mark.parametrize("end", ENDS)
def test_an_end_told_beside_a_new_value_is_history_and_the_new_value_current(
    settings: Settings, end: str
) -> None:
    rng = random.Random(end)
    for i, (old, new) in enumerate(zip(OLDS, [*NEWS, NEWS[0]], strict=True)):
        n, m = made_up(rng), made_up(rng)
        remember(settings, old.format(n=n), now=at(1, i + 1))
        consolidate(settings)
        said = remember(settings, f"{end.format(n=n)} {new.format(m=m)}", now=at(4, i + 1)).id
        consolidate(settings)
        assert not [b for b in naming(settings, n) if b.current], (old, end, bullets(settings))
        told = {b.entry_id: b for b in bullets(settings) if b.entry_id in (said, f"{said}-1")}
        now, record = told[said], told[f"{said}-1"]
        assert now.current and m in now.text and n not in now.text, now
        first = end.format(n=n).split(",")[0].rstrip(".")  # its first clause at least
        assert record.status == "ended" and first in record.text, record
        assert m not in record.text


PLANS = ["Week 3 of {n} and I'm starving", "Doing the {n} plan this month", "On day 9 of {n}"]
FINISHES = [
    "I finished {n} yesterday",
    "We completed {n} last week",
    "finally finished {n} on Sunday",
]
JOINED = [" and now ", " so now ", " but now ", " and these days ", " and instead "]
AFTER = ["the dietitian has me on {m}", "I'm trying {m}", "it's {m} for me"]


@pytest.mark.parametrize("join", JOINED)
def test_a_finish_joined_by_a_word_of_replacement_is_history_and_the_rest_current(
    join: str,
) -> None:
    rng = random.Random(join)
    for plan, finish, after in itertools.product(PLANS, FINISHES, AFTER):
        n, m = made_up(rng), made_up(rng)
        while m == n or m in n or n in m:
            m = made_up(rng)
        said = f"{finish.format(n=n)}{join}{after.format(m=m)}"
        old = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), plan.format(n=n))
        new = FactBullet("bbbbbbbbbbbb", date(2025, 4, 1), said)
        reading = reading_of(said)
        assert n.lower() in [o.lower() for o in reading.olds], (said, reading)
        now, record = told_ends(new, reading, [old])
        assert now is not None and record is not None, said
        assert m in now.text and n not in now.text, now
        word = join.strip().split(" ", 1)[1]
        assert now.text.lower().startswith(word), now  # the word of replacement opens the rest
        assert record.status == "ended" and n in record.text and m not in record.text, record


def test_a_statement_that_is_all_end_is_the_record_whole(settings: Settings) -> None:
    rng = random.Random(2)
    for i, old in enumerate(OLDS):
        n = made_up(rng)
        remember(settings, old.format(n=n), now=at(1, i + 1))
        consolidate(settings)
        said = remember(settings, f"We had to say goodbye to {n} this morning.", now=at(4, i + 1))
        consolidate(settings)
        assert not [b for b in naming(settings, n) if b.current], bullets(settings)
        [record] = [b for b in bullets(settings) if b.entry_id == said.id]
        assert record.status == "ended" and n in record.text, record


def test_one_clause_naming_the_old_and_the_new_value_stays_current(settings: Settings) -> None:
    rng = random.Random(3)
    for i, (car, new) in enumerate([("Fiesta", "Niro"), ("Corsa", "Octavia")]):
        remember(settings, f"I drive a Ford {car} called {made_up(rng)}", now=at(1, i + 1))
        consolidate(settings)
        said = remember(settings, f"traded the {car} in for a {new}", now=at(4, i + 1)).id
        consolidate(settings)
        [told] = [b for b in bullets(settings) if b.entry_id == said]
        assert told.current and new in told.text, told


def test_an_end_that_ends_nothing_stays_current(settings: Settings) -> None:
    rng = random.Random(4)
    n = made_up(rng)
    said = remember(settings, f"We lost {n} in March. The house is quiet now", now=at(4)).id
    consolidate(settings)
    assert [b.current for b in bullets(settings) if b.entry_id == said] == [True]


def test_forgetting_the_statement_forgets_its_end_and_gives_the_fact_back(
    settings: Settings, log: SessionLog
) -> None:
    rng = random.Random(5)
    n, m = made_up(rng), made_up(rng)
    old = remember(settings, OLDS[0].format(n=n), now=at(1)).id
    consolidate(settings)
    said = remember(settings, f"{ENDS[0].format(n=n)} {NEWS[1].format(m=m)}", now=at(4)).id
    consolidate(settings)
    assert {b.entry_id for b in bullets(settings)} == {old, said, f"{said}-1"}
    forget(settings, log, said, via="cli")
    left = bullets(settings)
    assert [(b.entry_id, b.current) for b in left] == [(old, True)], left
    root = settings.workspace.concepts_dir
    assert not [p for p in root.rglob("*.md") if m in p.read_text() or "lost" in p.read_text()]


def test_an_ended_record_reads_back_as_written() -> None:
    rng = random.Random(6)
    for _ in range(5):
        told = FactBullet("0123456789ab", at(4).date(), f"We lost {made_up(rng)} in March.")
        record = told.ended("0123456789ab-1")
        [back] = fact_bullets(with_facts("---\ntitle: Pets\n---\n", added=[record]))
        assert (back.status, back.entry_id, back.text) == ("ended", record.entry_id, told.text)


@pytest.mark.parametrize("who", ["Dad", "My sister", "I"])
def test_a_retirement_is_a_new_standing_and_stays_current(settings: Settings, who: str) -> None:
    rng = random.Random(who)
    org = f"{made_up(rng)} Buses"
    own = who == "I"
    remember(settings, f"{'I drive' if own else who + ' drives'} buses for {org}", now=at(1))
    consolidate(settings)
    said = remember(settings, f"{who} retired on Friday after 31 years at {org}", now=at(4)).id
    consolidate(settings)
    [told] = [b for b in bullets(settings) if b.entry_id == said]
    assert told.current, told


# Arabic: the clauses are cut at a comma and before "و" that opens a verb.
OLDS_AR = ["عندي قطة اسمها {n}", "نربي كلب اسمه {n}", "{n} قطتي عمرها خمس سنين"]
ENDS_AR = ["{n} ماتت الله يرحمها", "بعنا {n} لعائلة في الريف،", "أهدينا {n} لمحمية حيوانات،"]
NEWS_AR = ["وجبنا جرو صغير سميناه {m}", "والحين عندنا أرنب اسمه {m}"]


@pytest.mark.parametrize("end", ENDS_AR)
def test_an_arabic_end_told_beside_a_new_value_is_history(
    settings: Settings, index: SearchIndex, end: str
) -> None:
    rng = random.Random(end)
    for i, (old, new) in enumerate(zip(OLDS_AR, [*NEWS_AR, NEWS_AR[0]], strict=True)):
        n, m = arabic_name(rng), arabic_name(rng)
        remember(settings, old.format(n=n), now=at(1, i + 1))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        said = remember(settings, f"{end.format(n=n)} {new.format(m=m)}", now=at(4, i + 1)).id
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        assert not [b for b in naming(settings, n) if b.current], (old, end, bullets(settings))
        told = {b.entry_id: b for b in bullets(settings) if b.entry_id in (said, f"{said}-1")}
        now, record = told[said], told[f"{said}-1"]
        assert now.current and m in now.text and n not in now.text, now
        assert not now.text.startswith("و"), now  # standing alone, without its joining "و"
        assert record.status == "ended" and n in record.text and m not in record.text, record


def test_an_arabic_exchange_in_one_clause_stays_current(
    settings: Settings, index: SearchIndex
) -> None:
    rng = random.Random(7)
    for i in range(3):
        n, m = arabic_name(rng), arabic_name(rng)
        remember(settings, f"عندي سيارة {n} من سنتين", now=at(1, i + 1))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        said = remember(settings, f"بدلت ال{n} ب{m} الشهر الماضي", now=at(4, i + 1)).id
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        [told] = [b for b in bullets(settings) if b.entry_id == said]
        assert told.current and m in told.text, told
