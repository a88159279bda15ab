"""A person's endeavours get their own pages: the first mention makes it (titled
by a noun phrase, linking the person's page for its topic), and later facts
that name it follow it there, in time order; English and Arabic."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate
from substrate.consolidation.endeavours import endeavour_of
from substrate.consolidation.naming import subject_phrase
from substrate.pages import fact_bullets, load_page_index


@pytest.mark.parametrize(
    ("text", "title", "topic"),
    [
        ("I'm planning a trip to Lisbon in March.", "Trip to Lisbon", "travel"),
        ("I started learning the cello last month.", "Cello lessons", "hobbies"),
        ("My startup Brightline just closed a seed round.", "Brightline", "work"),
        ("We launched our app, Habitly, in May.", "Habitly", "work"),
        ("My NER model now hits 0.91 F1.", "NER project", "education"),
        ("We're renovating the kitchen this summer.", "Kitchen renovation", "home"),
        ("I'm training for a half marathon in October.", "Half marathon training", "health"),
        ("My research on protein folding got accepted.", "Protein folding research", "education"),
        ("رحلتي إلى دبي كانت رائعة.", "رحلة إلى دبي", "travel"),
        ("بدأت تعلم العزف على العود.", "تعلّم العود", "hobbies"),
    ],
)
def test_an_endeavour_is_named_by_a_noun_phrase(text: str, title: str, topic: str) -> None:
    found = endeavour_of(text)
    assert found is not None and (found.title, found.topic) == (title, topic)


@pytest.mark.parametrize(
    "text", ["I live in Leeds.", "I love my new job.", "I went to bed early.", "My back hurts."]
)
def test_a_fact_about_no_endeavour_names_none(text: str) -> None:
    assert endeavour_of(text) is None


def test_an_endeavours_facts_gather_on_its_page_in_time_order(settings: Settings) -> None:
    def said(text: str, day: int) -> None:
        remember(settings, text, now=datetime(2024, 3, day, 10, tzinfo=UTC))

    said("I live in Leeds.", 1)
    said("My startup Brightline is building a scheduling app for clinics.", 1)
    said("I work at Brightline Health as its CTO.", 2)
    said("Brightline signed its first two clinics.", 9)
    said("Brightline closed a seed round of 1.2 million.", 20)
    consolidate(settings)
    index = load_page_index(settings.workspace)
    entry = index.entries["projects/brightline"]
    assert entry.title == "Brightline" and "me/work" in entry.link_targets()
    text = (settings.workspace.concepts_dir / entry.path).read_text()
    facts = [b.text for b in fact_bullets(text)]
    assert [f.split()[1] for f in facts] == ["startup", "signed", "closed"]
    assert not any(slug.startswith("inbox/") for slug in index.entries)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("What about using turbinado sugar in cakes?", "Turbinado sugar"),
        ("Do you think political humor can ever cross a line?", None),  # never "Political …"
        ("Any tips on sourdough starter maintenance?", "Sourdough starter maintenance"),
        ("How can tea tree oil help to treat acne?", "Tea tree oil"),
        ("Write again the review, but much harsher.", None),  # no phrase: never "Harsher"
        ("Perfect, finish it.", None),
    ],
)
def test_a_fact_that_names_nothing_is_titled_by_what_it_is_about(
    text: str, phrase: str | None
) -> None:
    assert subject_phrase(text) == phrase


def test_a_conversation_that_names_nothing_gets_a_page_not_the_inbox(settings: Settings) -> None:
    when = datetime(2024, 3, 1, 10, tzinfo=UTC)
    remember(settings, "What about using turbinado sugar in cakes?", now=when)
    remember(settings, "And would it work in the frosting too?", now=when)
    consolidate(settings)
    slugs = set(load_page_index(settings.workspace).entries)
    assert slugs == {"turbinado-sugar"}
