"""A thing said to be through of itself ends, and a statement of several
sentences is read sentence by sentence, generated around each mechanism with
made-up names so no rule can know them."""

from __future__ import annotations

import random

import pytest

from substrate.meaning.events import read_events
from substrate.meaning.parser import clauses
from substrate.meaning.reading import read_text
from tests.made_up import names

THINGS = ["the {n} band", "my {n} membership", "the {n} book club", "{n}", "our {n} lease"]
THROUGH = [
    "{t} is over",
    "{t}'s over now",
    "{t} fell through",
    "{t} is finished",
    "{t} is on hold",
    "{t}'s finished",
]


@pytest.mark.parametrize("frame", THROUGH)
def test_a_thing_through_of_itself_ends_whatever_its_wording(frame: str) -> None:
    for n, name in enumerate(names(5, len(frame))):
        thing = THINGS[n % len(THINGS)].format(n=name)
        said = frame.format(t=thing)
        said = said[0].upper() + said[1:]
        ends = read_events(said).ends
        assert any(name.lower() in e.lower() for e in ends), (said, ends)


@pytest.mark.parametrize(
    "frame",
    [
        "{t} isn't over",  # negated
        "I'm over the moon about {t}",  # the person is the subject
        "{t} is over there",  # a place, not an end
    ],
)
def test_what_is_not_through_ends_nothing(frame: str) -> None:
    for name in names(4, len(frame)):
        said = frame.format(t=f"the {name} band")
        said = said[0].upper() + said[1:]
        assert not any(name.lower() in e.lower() for e in read_events(said).ends), said


def test_finishing_a_thing_is_no_end_of_it() -> None:
    for name in names(4, 11):  # "finished my 5th project": a count, not an end
        assert not read_events(f"I finished my 5th {name} project last week").ends


ADJECTIVES = ["Amicable", "Gutted", "Relieved", "Honestly", "Weird"]


def test_a_phrase_never_joins_words_of_two_sentences() -> None:
    rng = random.Random(5)
    for name in names(8, 3):
        after = rng.choice(ADJECTIVES)
        said = f"It's over with {name}. {after}, but still rubbish."
        assert read_events(said).ends == (name,), said
        for clause in clauses(said):
            for phrase in (*clause.subjects, *clause.objects, *(p for _, p in clause.attachments)):
                assert not (name in phrase.text and after in phrase.text), (said, phrase)


def test_each_sentence_of_a_statement_is_read_for_its_own_event() -> None:
    makes = ["Skoda", "Kia", "Toyota", "Volvo"]
    for n, name in enumerate(names(4, 9)):
        said = f"Sold the {name}. Bought a {makes[n]} {names(1, n)[0]} last week."
        events = read_events(said)
        assert name in events.ends, said
        assert events.start is not None and events.start.family == "vehicle", said


DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
ROUTINES = ["{d} nights = {a} at {n}", "{d}s it's {a} at {n}", "{d} mornings: {a} with {n}"]
ACTIVITIES = ["bowling league", "pottery", "five-a-side", "choir practice", "swimming"]


@pytest.mark.parametrize("frame", ROUTINES)
def test_a_note_that_opens_with_a_day_is_the_persons_routine_not_a_person(frame: str) -> None:
    rng = random.Random(frame)
    for day in DAYS:
        said = frame.format(d=day, a=rng.choice(ACTIVITIES), n=names(1, rng.randrange(99))[0])
        subject = read_text(said).subject
        assert subject.kind == "me" and subject.name is None, (said, subject)


def test_a_name_that_opens_a_note_is_still_a_person() -> None:
    for name in names(6, 21):
        subject = read_text(f"{name} moved to Leeds last month").subject
        assert (subject.kind, subject.name) == ("named", name)


MOVED_THINGS = ["everything", "my savings", "my pension", "all my stuff", "the kids' toys"]
DESTINATIONS = ["Chase UK", "Monzo", "the loft", "Nationwide", "my sister's garage"]
# (the recogniser types "Bristol" alone as an organisation: a known limit, not this rule's)
CITIES = ["Leeds", "Lisbon", "Glasgow", "Toronto", "Madrid"]


def test_moving_a_thing_somewhere_names_no_home() -> None:
    rng = random.Random(17)
    for thing in MOVED_THINGS:
        for where in rng.sample(DESTINATIONS, 3):
            for frame in ("I moved {t} over to {w} last week", "Moved {t} to {w} yesterday"):
                said = frame.format(t=thing, w=where)
                assert read_text(said).slot.slot != "home", said


def test_moving_oneself_still_names_a_home() -> None:
    for city in CITIES:
        for frame in ("We moved to {c} in May", "Moved to {c} last month", "we moved house to {c}"):
            said = frame.format(c=city)
            assert read_text(said).slot.slot == "home", said


@pytest.mark.parametrize(
    "frame",
    [
        "I finished the {n} course last week",
        "Completed my {n} programme",
        "We finally finished {n} Level 2",
    ],
)
def test_a_thing_finished_ends(frame: str) -> None:
    for name in names(4, len(frame) + 3):
        said = frame.format(n=name)
        assert any(name in e for e in read_events(said).ends), said


@pytest.mark.parametrize(
    "frame",
    [
        "I finished my 5th {n} project",
        "Finished two {n} chapters",
        "I completed my first {n} quilt",
    ],
)
def test_one_of_a_count_finished_ends_nothing(frame: str) -> None:
    for name in names(4, len(frame) + 5):
        said = frame.format(n=name)
        assert not read_events(said).ends, said


def test_finishing_a_spell_of_an_activity_ends_nothing() -> None:
    for name in names(4, 31):
        said = f"I just finished reading about {name} in my history book"
        assert not read_events(said).ends, said
        assert not read_events(f"Finished painting the {name} fence today").ends


def test_relocating_oneself_names_a_home_and_relocating_a_thing_none() -> None:
    # cities the recogniser types as places in this shape (it reads "to Leeds",
    # "to Glasgow", "to Manchester" here as clubs: the reading needs a place)
    for city in ["Lisbon", "Madrid", "Toronto", "Berlin", "Dublin"]:
        assert read_text(f"We have relocated across the river to {city}").slot.slot == "home", city
        assert read_text(f"I relocated my office to {city}").slot.slot != "home", city
