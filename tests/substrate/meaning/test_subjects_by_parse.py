"""Whom a statement is about, read from the parse: someone the person names
beside what they are to them ("my buddy Darnell"), wherever the sentence puts
them and whatever the relation's word, is that person, not the person
themselves; a pet or a car with a name stays the person's own thing.
Relations, names and openers are generated per case."""

from __future__ import annotations

import random

import pytest

from substrate.meaning.subjects import read_subject
from tests.substrate.meaning.test_events import made_up

RELATIONS = ["buddy", "flatmate", "housemate", "landlord", "physio", "old teammate"]
OPENERS = ["", "Heads up, ", "save this for me — ", "btw "]
ACTS = [
    "is moving to {p} in the spring",
    "just started at {p} Labs",
    "'s new number is 07866 240 311",
]


@pytest.mark.parametrize("relation", RELATIONS)
def test_someone_named_beside_their_relation_is_the_subject(relation: str) -> None:
    rng = random.Random(relation)
    for opener in OPENERS:
        name, place = made_up(rng), made_up(rng)
        act = rng.choice(ACTS).format(p=place)
        text = f"{opener}my {relation} {name}{'' if act.startswith(chr(39)) else ' '}{act}"
        subject = read_subject(text)
        assert subject.kind == "named" and subject.name == name, (text, subject)


@pytest.mark.parametrize("thing", ["dog", "cat", "car", "van"])
def test_a_named_pet_or_vehicle_stays_the_persons_own(thing: str) -> None:
    rng = random.Random(thing)
    for _ in range(3):
        text = f"my {thing} {made_up(rng)} is three years old"
        assert read_subject(text).kind == "me", text


@pytest.mark.parametrize("relation", ["partner", "sister", "boyfriend", "friend"])
@pytest.mark.parametrize("joined", ["and I", "& I", "and me"])
def test_a_relative_beside_the_person_makes_the_statement_the_persons(
    relation: str, joined: str
) -> None:
    rng = random.Random(relation + joined)
    for act in ("moved in together", "went to {p} for the weekend", "broke up last week"):
        text = f"My {relation} {made_up(rng)} {joined} {act.format(p=made_up(rng))}"
        subject = read_subject(text)
        assert subject.kind == "me" and "I and I" not in subject.own, (text, subject)


@pytest.mark.parametrize("when", ["Saturday", "Wednesday", "Sunday", "June", "Christmas", "Friday"])
@pytest.mark.parametrize(
    "frame",
    [
        "My {w} thing is {p} at the park",
        "my {w} nights now belong to a {p} group",
        "Our {w} plan is {p}",
    ],
)
def test_a_day_or_a_season_beside_my_is_nobody_named(when: str, frame: str) -> None:
    place = made_up(random.Random(when + frame))
    subject = read_subject(frame.format(w=when, p=place))
    assert subject.kind == "me"
    assert subject.name is None
