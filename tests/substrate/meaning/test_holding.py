"""The person's present of having, using and living names a current value of
its family, whatever the value's name: generated with made-up names so no
rule can know them; what is rented, visited or planned names none."""

from __future__ import annotations

import pytest

from substrate.consolidation.lifecycle import reading_of
from tests.made_up import names

HELD = [
    ("I have a {n} digital subscription", "membership"),
    ("We have a {n} season ticket", "membership"),
    ("I drive a Ford {n}", "vehicle"),
    ("I use {n} Dental Practice", "provider"),
    ("I go to the gym at {n} Fitness", "provider"),
]


@pytest.mark.parametrize(("frame", "family"), HELD)
def test_a_present_of_having_or_using_names_a_value_of_its_family(frame: str, family: str) -> None:
    for name in names(4, len(frame)):
        reading = reading_of(frame.format(n=name))
        assert reading.slot is not None and reading.slot.split(":")[0] in (family, "employer"), (
            frame.format(n=name),
            reading,
        )
        assert reading.slot.startswith(family), (frame.format(n=name), reading)


@pytest.mark.parametrize(
    "frame",
    [
        "I rent a car in {n} every summer",  # rented: the person's only as a home
        "I visit my mum in {n} every week",  # a visit holds nothing
        "I want a {n} subscription",  # a wish
        "I had a {n} subscription",  # the past
        "I don't have a {n} subscription",  # negated
    ],
)
def test_what_is_rented_visited_wished_or_past_names_no_value(frame: str) -> None:
    for name in names(4, len(frame)):
        said = frame.format(n=name)
        reading = reading_of(said)
        assert reading.value is None or reading.past, (said, reading)


KINDS = ["flat with a garden", "subscription", "season ticket", "dentist"]


@pytest.mark.parametrize("verb", ["have", "rent", "use", "drive"])
def test_a_kind_alone_says_which_one_nowhere_and_names_no_value(verb: str) -> None:
    for kind in KINDS:  # "I rent a flat with a garden": of what kind, not which
        said = f"I {verb} a {kind}"
        assert reading_of(said).value is None, said


def company(seed: int) -> str:
    suffix = ["Labs", "Logistics", "LLP", "Health", "Media"][seed % 5]
    return f"{names(1, seed)[0]} {suffix}"


WORK_STARTS = [
    "accepted an offer from {c} as a junior analyst",
    "Passed the exam and accepted an offer from {c}",
    "{c} hired me last week",
    "{c} took me on for weekend shifts",
    "{c} is my employer now",
    "{c} is my own little business",
]


@pytest.mark.parametrize("frame", WORK_STARTS)
def test_work_named_by_whom_it_is_with_is_that_organisation(frame: str) -> None:
    for seed in range(4):
        org = company(seed + len(frame))
        said = frame.format(c=org)
        reading = reading_of(said)
        assert reading.slot == "employer", (said, reading)
        assert reading.value is not None and org.split()[0].lower() in reading.value, (
            said,
            reading,
        )


BEGUN = ["Arabic", "BSL level 1", "a pottery class", "Mandarin", "evening Spanish"]


def test_a_thing_begun_somewhere_is_no_job_there() -> None:
    for n, thing in enumerate(BEGUN):
        org = company(n + 40)
        for frame in ("Started {t} at {c} this year", "I've started {t} at {c}"):
            said = frame.format(t=thing, c=org)
            assert reading_of(said).slot != "employer", said


def test_a_job_begun_somewhere_or_a_start_there_is_work() -> None:
    for n in range(5):
        org = company(n + 60)
        for frame in (
            "I started a new job at {c}",
            "Started at {c} today",
            "I start at {c} on Monday",
        ):
            said = frame.format(c=org)
            assert reading_of(said).slot == "employer", said


def test_a_being_named_as_the_persons_stays_who_the_statement_is_about() -> None:
    from substrate.meaning.reading import read_text

    for n, name in enumerate(names(6, 77)):
        kind = ["climbing partner", "partner", "cat", "dog", "business partner", "puppy"][n]
        reading = read_text(f"{name} Quill is my {kind}.")
        assert reading.subject.kind == "named", (name, kind, reading.subject)
