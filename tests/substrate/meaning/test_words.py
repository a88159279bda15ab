"""Page titles name a subject: never a function word, an adverb, a verb or an
adjective first or alone, in English and Arabic; the filer's titles pass the
same check the benchmarks apply, whatever the fact says."""

from __future__ import annotations

import itertools

import pytest

from substrate.consolidation.naming import leading_name, subject_phrase
from substrate.meaning.words import kind_of_word, noun_phrase, title_problem


@pytest.mark.parametrize(
    "title",
    ["finish", "Currently", "initial", "Perfect", "Change", "Longer live", "Retired greyhound",
     "Answers", "Finally moved", "Getting better", "أتعلم العزف على العود", "في البيت"],
)  # fmt: skip
def test_titles_that_name_nothing_are_refused(title: str) -> None:
    if title == "Answers":  # a plural noun names something
        assert title_problem(title) is None
        return
    assert title_problem(title) is not None


@pytest.mark.parametrize(
    "title",
    ["Morven Reid", "Biscuit", "Music theory", "New York", "Western General", "Iona (sister)",
     "العزف على العود", "Sourdough starter maintenance", "Home", "Work", "Profile"],
)  # fmt: skip
def test_titles_that_name_a_subject_pass(title: str) -> None:
    assert title_problem(title) is None


def test_the_regular_forms_of_a_verb_are_verbs_and_nouns_in_ing_are_not() -> None:
    assert {kind_of_word(w) for w in ("finishes", "finished", "finishing", "stopped")} == {"verb"}
    assert kind_of_word("painting") is None and kind_of_word("wedding") is None
    assert kind_of_word("quickly") == "adverb" and kind_of_word("family") is None


def test_the_arabic_noun_phrase_not_the_verb() -> None:
    assert noun_phrase("أتعلم العزف على العود كل يوم سبت".split()) == ["العزف", "على", "العود"]
    assert subject_phrase("أتعلم العزف على العود كل يوم سبت") == "العزف على العود"


OPENERS = ["Perfect", "Currently", "Finally", "Honestly", "Initially", "Basically", "Change",
           "Finish", "Getting", "Retired", "Great", "Quick", "Yesterday"]  # fmt: skip
TAILS = ["the report is due on Friday.", "timing for the trip to the coast.",
         "my sister visited the old house.", "reading a book about tea gardens."]  # fmt: skip


@pytest.mark.parametrize(("opener", "tail"), list(itertools.product(OPENERS, TAILS)))
def test_no_sentence_opener_becomes_a_title(opener: str, tail: str) -> None:
    text = f"{opener} {tail}"
    for title in (leading_name(text), subject_phrase(text)):
        assert title is None or title_problem(title) is None, (text, title)
