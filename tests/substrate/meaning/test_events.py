"""Events read from the parse, generated around each mechanism: a predicate's
class (start, end, exchange) whatever its inflection and word order, what an
end names (object, attachment, or its own subject when that is not the
person), a value's family from its head noun, and nothing when the clause is
negated, modal or in the future. Names are made up per case, so no rule can
know them."""

from __future__ import annotations

import random
import shutil
import zlib
from datetime import date
from pathlib import Path

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.errors import InvalidInputError
from substrate.meaning.events import read_events
from substrate.meaning.parser import PINNED, clauses, model_dir, verify
from substrate.pages import FactBullet
from tests.made_up import made_up, names

RNG = random.Random(73)

# (past tense, as said with "I", as a diary says it, with "we've")
END_VERBS = [
    ("sold", "sell"),
    ("cancelled", "cancel"),
    ("quit", "quit"),
    ("left", "leave"),
    ("gave up", "give up"),
    ("ditched", "ditch"),
    ("scrapped", "scrap"),
    ("dropped", "drop"),
]
THINGS = ["the {n}", "my {n}", "our old {n}", "the {n} membership"]
WHEN = ["", " last week", " on Friday", " yesterday"]


def end_statements() -> list[tuple[str, str]]:
    out = []
    for (past, _), name in zip(END_VERBS * 3, names(24, 1), strict=True):
        thing = RNG.choice(THINGS).format(n=name)
        when = RNG.choice(WHEN)
        for frame in ("I {v} {t}{w}", "We've {v} {t}{w}", "{V} {t}{w}", "So I {v} {t}{w}."):
            said = frame.format(v=past, V=past.capitalize(), t=thing, w=when)
            out.append((said, name))
    return out


@pytest.mark.parametrize(("said", "name"), end_statements())
def test_an_end_names_what_it_ended_whatever_its_inflection_and_order(said: str, name: str) -> None:
    ends = read_events(said).ends
    assert any(name in e for e in ends), (said, ends)


@pytest.mark.parametrize(
    "frame",
    ["I didn't {v} {t}", "I might {v} {t}", "I'll {v} {t} next month", "I never {v} {t}"],
)
def test_a_negated_modal_or_future_end_ends_nothing(frame: str) -> None:
    for (_, base), name in zip(END_VERBS, names(8, 2), strict=True):
        said = frame.format(v=base, t=f"the {name}")
        assert read_events(said).ends == (), said


@pytest.mark.parametrize("name", names(6, 3))
@pytest.mark.parametrize(
    "frame",
    [
        "{n} died this morning",
        "{n} passed away last night",
        "{n} and I broke up",
        "{n} and I split up",
    ],
)
def test_an_end_whose_subject_is_not_the_person_ends_that_subject(frame: str, name: str) -> None:
    said = frame.format(n=name)
    assert any(name in e for e in read_events(said).ends), said


@pytest.mark.parametrize("name", names(4, 4))
def test_someone_else_ending_something_is_not_the_person_s_end(name: str) -> None:
    assert read_events(f"{name} sold the Corvan").ends == ()


MAKES = ["Skoda", "Kia", "Toyota", "Volvo", "Mazda", "Honda"]


@pytest.mark.parametrize("verb", ["Part-exchanged", "Traded", "I swapped", "We traded in"])
def test_an_exchange_ends_its_object_and_starts_what_it_brought(verb: str) -> None:
    rng = random.Random(verb)
    for _ in range(4):
        old, model = made_up(rng), made_up(rng)
        make = rng.choice(MAKES)
        events = read_events(f"{verb} the {old} for a used {make} {model}")
        assert any(old in e for e in events.ends), (verb, old, events)
        assert events.start is not None and events.start.family == "vehicle", events
        assert model in events.start.text


FAMILY_HEADS = {
    "home": ["flat", "house", "cottage", "apartment", "bungalow"],
    "vehicle": ["car", "van", "motorbike", "bike", "scooter"],
    "provider": ["dentist", "vet", "GP", "physio", "optician"],
    "membership": ["membership", "subscription", "season ticket"],
    "pet": ["puppy", "kitten", "rabbit", "dog"],
}
STARTS = ["I bought a {h}", "We got a new {h}", "Bought a second-hand {h}", "We've adopted a {h}"]


@pytest.mark.parametrize("family", sorted(FAMILY_HEADS))
def test_a_value_s_family_comes_from_its_head_noun(family: str) -> None:
    rng = random.Random(family)
    for head in FAMILY_HEADS[family]:
        said = rng.choice(STARTS).format(h=f"{made_up(rng)} {head}")
        value = read_events(said).start or read_events(said).state
        assert value is not None and value.family == family, (said, value)


@pytest.mark.parametrize("org", names(6, 5))
def test_an_organisation_joined_as_a_job_is_an_employer(org: str) -> None:
    start = read_events(f"I joined {org} Logistics as a senior analyst").start
    assert start is not None and start.family == "work" and org in start.text


def test_a_prefix_joined_by_a_hyphen_is_part_of_the_predicate_not_a_subject() -> None:
    (clause,) = [
        c for c in clauses("Part-exchanged the Corvan for a Kia") if "exchange" in c.predicate
    ]
    assert clause.predicate == "part-exchange"
    assert clause.speaker and clause.subjects == ()


def fact(text: str, day: date, key: str) -> FactBullet:
    return FactBullet(key, day, text, slot=reading_of(text).slot)


OLD_FACTS = [
    ("I drive a Ford {n}", "Sold the {n} last week"),
    ("I work at {n} Bakeries", "left {n} Bakeries last Friday"),
    ("We have a cat called {n}", "{n} died this morning"),
    ("{n} is my boyfriend", "{n} and I broke up last weekend"),
    ("I go to {n}Gym three times a week", "Cancelled my {n}Gym membership"),
]


@pytest.mark.parametrize(("old", "new"), OLD_FACTS)
def test_an_end_that_names_a_current_fact_s_entity_retracts_it(old: str, new: str) -> None:
    for name in names(4, zlib.crc32(old.encode()) % 1000):  # the same names every run
        before = fact(old.format(n=name), date(2024, 1, 1), "aaaaaaaaaaaa")
        other = fact("I like long walks on the beach", date(2024, 1, 1), "cccccccccccc")
        after = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), new.format(n=name))
        decision = decide(after, reading_of(after.text), [before, other])
        assert decision.action == "retract", (old, new, name, decision)
        assert decision.targets == ("aaaaaaaaaaaa",)


def test_an_end_that_names_no_current_fact_ends_nothing_and_says_so() -> None:
    before = fact("I drive a Ford Corvan", date(2024, 1, 1), "aaaaaaaaaaaa")
    after = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), "Sold the Tellmar last week")
    decision = decide(after, reading_of(after.text), [before])
    assert decision.action == "add" and decision.said == "nothing to retract"


@pytest.mark.parametrize("make", MAKES)
def test_a_new_value_of_the_same_family_supersedes_the_old(make: str) -> None:
    rng = random.Random(make)
    old_model, new_model = made_up(rng), made_up(rng)
    before = fact(f"My car's a silver Ford {old_model}", date(2024, 1, 1), "aaaaaaaaaaaa")
    for said in (f"Bought a {make} {new_model} estate", f"Picked up a {make} {new_model}"):
        after = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), said)
        decision = decide(after, reading_of(said), [before])
        assert decision.action == "update" and decision.targets == ("aaaaaaaaaaaa",), said


def test_a_pipeline_whose_files_are_not_the_pinned_ones_is_refused(tmp_path: Path) -> None:
    folder = model_dir()
    verify(folder)
    for name in PINNED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / name, tmp_path / name)
    verify(tmp_path)
    damaged = tmp_path / "parser/model"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(InvalidInputError, match="parser/model"):
        verify(tmp_path)


@pytest.mark.parametrize(
    "frame",
    [
        "We had to say goodbye to {n} this morning",
        "I said farewell to {n}",
        "Handed in my notice at {n} Labs",
    ],
)
def test_a_light_verb_with_an_ending_noun_ends_what_it_is_said_to(frame: str) -> None:
    for name in names(4, len(frame)):
        said = frame.format(n=name)
        assert any(name in e for e in read_events(said).ends), said
