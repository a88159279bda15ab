"""A provider read by structure: named by two words whose head alone says
nothing ("… Health Centre", "my current account"), by a verb that names the
service done with it ("I bank with …"), by the account it holds ("… is with
X"), or as the subject that holds the person's things ("X Surgery has my
records"). A newer provider of the same kind replaces the older; one of
another kind stands beside it. Names are made up."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet
from tests.made_up import seeded

KINDS = {
    "Health Centre": "gp",
    "Medical Centre": "gp",
    "Medical Practice": "gp",
    "Dental Practice": "dentist",
    "Animal Hospital": "vet",
    "Veterinary Clinic": "vet",
    "Leisure Centre": "gym",
}
JOINED = [
    "I've just signed up with {p}",
    "We registered with {p} last week",
    "I'm registered at {p} now",
]
BANKS = [
    "I bank with {b}",
    "my current account is with {b}",
    "our joint account is with {b}",
    "We bank with {b} these days",
]
HOLDS = ["{p} has my records", "{p} holds my notes", "{p} has all our records"]


def _action(old: str, said: str) -> tuple[str, tuple[str, ...]]:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    decision = decide(after, reading_of(said), [before])
    return decision.action, decision.targets


@pytest.mark.parametrize(("noun", "frame"), list(itertools.product(KINDS, JOINED)))
def test_a_provider_named_by_two_words_is_of_their_kind(noun: str, frame: str) -> None:
    name = f"{seeded(noun + frame)} {noun}"
    read = reading_of(frame.format(p=name))
    assert read.slot == f"provider:{KINDS[noun]}", (frame, name, read)
    assert read.value is not None and read.value.endswith(noun.lower())


@pytest.mark.parametrize("frame", BANKS)
def test_a_bank_is_read_by_the_verb_or_the_account_it_holds(frame: str) -> None:
    for n in range(4):
        bank = seeded(f"{frame}{n}")
        read = reading_of(frame.format(b=bank))
        assert (read.slot, read.value) == ("provider:bank", bank.lower()), (frame, bank)


@pytest.mark.parametrize(("frame", "noun"), list(itertools.product(HOLDS, ["Surgery", "Dental"])))
def test_a_named_provider_holding_the_persons_things_is_their_provider(
    frame: str, noun: str
) -> None:
    name = f"{seeded(frame + noun)} {noun}"
    read = reading_of(frame.format(p=name))
    assert read.slot is not None and read.slot.startswith("provider:"), (name, read)
    assert read.value == name.lower()


@pytest.mark.parametrize(
    ("old", "new"),
    list(itertools.product(BANKS, ["I bank with {b} now", "my current account is with {b} now"])),
)
def test_a_newer_bank_replaces_the_older(old: str, new: str) -> None:
    first, second = seeded(old), seeded(old + new)
    assert _action(old.format(b=first), new.format(b=second)) == ("update", ("aaaaaaaaaaaa",))


@pytest.mark.parametrize("noun", ["Health Centre", "Dental Practice"])
def test_a_provider_of_another_kind_stands_beside_the_bank(noun: str) -> None:
    bank, other = seeded(noun), seeded(noun + "x")
    action, _ = _action(f"I bank with {bank}", f"I've just signed up with {other} {noun}")
    assert action == "add"


@pytest.mark.parametrize("frame", HOLDS)
def test_someone_elses_records_name_no_provider_of_the_persons(frame: str) -> None:
    name = f"{seeded(frame)} Surgery"
    said = frame.format(p=name).replace(" my ", " Tom's ").replace(" our ", " their ")
    slot = reading_of(said).slot
    assert slot is None or not slot.startswith("provider:")
