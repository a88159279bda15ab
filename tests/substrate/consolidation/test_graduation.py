"""A graduation with nothing named ends its subject's studies, named by their
kind, and nothing else of theirs; someone else's graduation leaves the
person's own studies. English and Arabic; names are made up."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate
from substrate.meaning.arabic import has_arabic
from substrate.pages import FactBullet, fact_bullets
from tests.made_up import arabic_noun_name, made_up

CASES = [
    ("My sister {n} studies law at {p}", "{n} graduated last week!", "{n} lives in {q}"),
    ("my cousin {n} is studying medicine at {p}", "{n} finally graduated", "{n} has a cat"),
    ("أختي {n} تدرس في جامعة {p}", "{n} تخرجت الأسبوع الماضي", "{n} عندها قطة"),
    ("أخوي {n} يدرس في جامعة {p}", "{n} تخرج وتوظف في شركة {q}", "{n} يحب الكورة"),
]


def at(month: int) -> datetime:
    return datetime(2025, month, 1, 10, 0, tzinfo=UTC)


def bullets(settings: Settings) -> list[FactBullet]:
    root = settings.workspace.concepts_dir
    return [b for path in sorted(root.rglob("*.md")) for b in fact_bullets(path.read_text())]


@pytest.mark.parametrize(("studies", "graduated", "other"), CASES)
def test_a_graduation_ends_the_studies_and_nothing_else(
    settings: Settings, studies: str, graduated: str, other: str
) -> None:
    rng = random.Random(studies)
    arabic = has_arabic(studies)
    name = arabic_noun_name(rng) if arabic else made_up(rng)
    p, q = (
        (arabic_noun_name(rng), arabic_noun_name(rng)) if arabic else (made_up(rng), made_up(rng))
    )
    old = remember(settings, studies.format(n=name, p=p), now=at(1)).id
    kept = remember(settings, other.format(n=name, q=q), now=at(1)).id
    consolidate(settings)
    said = remember(settings, graduated.format(n=name, q=q), now=at(4)).id
    consolidate(settings)
    status = {b.entry_id: b.status for b in bullets(settings)}
    assert status[old] == "retracted", bullets(settings)
    assert status[kept] == "current" and status[said] == "current", bullets(settings)


def test_someone_elses_graduation_leaves_the_persons_studies(settings: Settings) -> None:
    rng = random.Random(9)
    mine = remember(settings, f"I study nursing at {made_up(rng)} University", now=at(1)).id
    consolidate(settings)
    remember(settings, f"{made_up(rng)} graduated last week!", now=at(4))
    consolidate(settings)
    assert {b.entry_id: b.status for b in bullets(settings)}[mine] == "current"
