"""A statement is a question by its opening sentence: a question after a
statement leaves the statement, a short opener ("Honestly?", "Guess what?")
asks nothing, and the person's own statement with a question tagged on is a
statement; a question that opens stays a question."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning.reading import read_text
from substrate.meaning.statements import ASSERTION, HYPOTHETICAL, kind_of
from tests.made_up import made_up

STATED = ["I moved to {p} last month.", "We live in {p} now.", "I work at {p} Labs."]
ASKED_AFTER = ["Any tips?", "What should I see first?", "Is that weird?"]
OPENERS = ["Honestly?", "Guess what?", "You know what?", "Update?"]
TAGGED = ["I work at {p} Labs now, so that's sorted I guess?", "We live in {p}, right?"]
ASKING = ["Should I move to {p}? I keep thinking about it", "Moving to {p} next year?",
          "Is {p} a good place to live? My sister says so", "What if I moved to {p}?"]  # fmt: skip


@pytest.mark.parametrize(("stated", "asked"), list(itertools.product(STATED, ASKED_AFTER)))
def test_a_question_after_a_statement_leaves_the_statement(stated: str, asked: str) -> None:
    place = made_up(random.Random(stated + asked))
    said = f"{stated.format(p=place)} {asked}"
    assert kind_of(said)[0] == ASSERTION
    assert read_text(said).slot.slot is not None, said


@pytest.mark.parametrize(("opener", "stated"), list(itertools.product(OPENERS, STATED)))
def test_a_short_opener_asks_nothing(opener: str, stated: str) -> None:
    place = made_up(random.Random(opener + stated))
    assert kind_of(f"{opener} {stated.format(p=place)}")[0] == ASSERTION


@pytest.mark.parametrize("tagged", TAGGED)
def test_the_persons_statement_with_a_tag_is_a_statement(tagged: str) -> None:
    assert kind_of(tagged.format(p=made_up(random.Random(tagged))))[0] == ASSERTION


@pytest.mark.parametrize("asking", ASKING)
def test_a_question_that_opens_stays_a_question(asking: str) -> None:
    assert kind_of(asking.format(p=made_up(random.Random(asking))))[0] == HYPOTHETICAL


DIARY_PAST = ["ported my number to {p} and somehow ended up with a new one?? it's 0791 234 567",
              "Sold the {p} last week?? still can't believe it", "Moved to {p}?! what a week"]  # fmt: skip
ALONE = ["Moved to {p}?", "Did I leave my keys at {p}? no idea", "Sold the {p}?"]


@pytest.mark.parametrize("said", DIARY_PAST)
def test_a_diarys_past_with_a_question_mark_before_more_tells_what_happened(said: str) -> None:
    assert kind_of(said.format(p=made_up(random.Random(said))))[0] == ASSERTION


@pytest.mark.parametrize("said", ALONE)
def test_a_past_asked_alone_or_with_its_asking_word_is_a_question(said: str) -> None:
    assert kind_of(said.format(p=made_up(random.Random(said))))[0] == HYPOTHETICAL
