"""A thing of the person's named by its kind alone is theirs ("home is a
narrowboat", "the vet we use now is …"), its kind read from the word that
names it; an adjective after the verb is no value, and someone else's thing
stays theirs. Values are made up per case."""

from __future__ import annotations

import pytest

from substrate.consolidation.lifecycle import reading_of
from tests.made_up import names

FRAMES = [
    ("home is a {kind} near {n}", "houseboat", "home"),
    ("the vet we use now is {n} Animal Hospital", "", "provider:vet"),
    ("the dentist these days is {n} Dental", "", "provider:dentist"),
    ("the car is a {n} estate now", "", "vehicle:car"),
]


@pytest.mark.parametrize(("frame", "kind", "slot"), FRAMES)
def test_a_thing_named_by_its_kind_alone_is_the_persons(frame: str, kind: str, slot: str) -> None:
    for name in names(4, len(frame)):
        said = frame.format(n=name, kind=kind)
        reading = reading_of(said)
        assert reading.slot == slot and reading.value, (said, reading)


@pytest.mark.parametrize("adjective", ["cold", "tiny", "noisy", "red"])
def test_an_adjective_after_the_verb_names_no_value(adjective: str) -> None:
    for thing in ("flat", "car", "my flat", "my car"):
        said = f"{thing.capitalize()} is {adjective}"
        assert reading_of(said).value is None, said


def test_someone_elses_thing_named_by_its_kind_is_theirs() -> None:
    for name, other in zip(names(4, 21), names(4, 22), strict=True):
        said = f"{name}'s car is a {other} estate"
        assert read_owner(said) == name, said


def read_owner(said: str) -> str | None:
    from substrate.meaning.reading import read_text

    return read_text(said).subject.name
