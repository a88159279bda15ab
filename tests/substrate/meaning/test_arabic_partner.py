"""An Arabic partner is named by a name after "my wife/husband/fiancé(e)"; a
word with the article after it ("أهل زوجتي والجو أهدى": the weather, not a
name) names no one, so the statement's other values are read. Names and
words are generated per case."""

from __future__ import annotations

import random

import pytest

from substrate.consolidation.lifecycle import reading_of
from substrate.meaning.slot_rules import PARTNER_BONDS
from tests.made_up import arabic_name

RELATIONS = ["زوجتي", "زوجي", "خطيبتي", "خطيبي"]


@pytest.mark.parametrize("relation", RELATIONS)
def test_a_name_after_the_relation_is_the_partner(relation: str) -> None:
    rng = random.Random(relation)
    for _ in range(4):
        name = arabic_name(rng)
        reading = reading_of(f"{relation} {name}")
        assert reading.slot == "partner" and reading.value == name, (relation, name, reading)


@pytest.mark.parametrize("relation", RELATIONS)
def test_a_word_with_the_article_after_the_relation_names_no_partner(relation: str) -> None:
    rng = random.Random(relation + "ال")
    for lead in ("و", "", "ب"):
        word, place = f"{lead}ال{arabic_name(rng)}", arabic_name(rng)
        said = f"استقرينا في مدينة {place}، قريب من أهل {relation} {word} أهدى"
        reading = reading_of(said)
        assert reading.slot == "home" and reading.value is not None, (said, reading)
        assert place in reading.value, (said, reading)


@pytest.mark.parametrize("verb", ["تزوجت", "خطبت", "تزوجت من"])
def test_marrying_names_the_partner_by_a_name_not_by_a_time(verb: str) -> None:
    rng = random.Random(verb)
    for _ in range(3):
        name = arabic_name(rng)
        assert reading_of(f"{verb} {name}").value == name, (verb, name)
        said = f"{verb} ال{arabic_name(rng)} اللي فات، الحمد لله"
        read = reading_of(said)  # no partner named by a time: the bond by itself, if any
        assert read.slot != "partner" or read.value in PARTNER_BONDS, (said, read)
