"""Whose address a statement holds: one in a sentence that names a person and
says nothing of the speaker's own is that person's, never the speaker's
contact slot; the speaker's own stays theirs. Names are made up per case."""

from __future__ import annotations

import random

import pytest

from substrate.meaning.slots import read_slot

FIRST = ["Gemma", "Tomas", "Priya", "Wendell", "Ines", "Kofi", "Marta", "Oskar"]
LAST = ["Royce", "Halloran", "Brindle", "Okafor", "Vasquez", "Lindqvist", "Marsh", "Quill"]
ROLES = ["Studio Coordinator", "Head of Sales", "Office Manager", "Lead Designer"]
LEADS = [
    "",
    "Can you draft an email signature for my new assistant? ",
    "Please add this to the staff list. ",
    "Save this contact for me: ",
]


@pytest.mark.parametrize("lead", LEADS)
def test_an_address_beside_a_named_person_is_not_the_speakers(lead: str) -> None:
    rng = random.Random(lead)
    for _ in range(6):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        address = f"{first[0].lower()}.{last.lower()}@{rng.choice(LAST).lower()}studio.co.uk"
        said = f"{lead}{first} {last}, {rng.choice(ROLES)}, {address}"
        assert read_slot(said).slot != "email", said


OWN = [
    "my email is {a}",
    "for email it's {a}, I check it daily",
    "Email me at {a} any time",
    "I'm on {a} these days",
]


@pytest.mark.parametrize("frame", OWN)
def test_the_speakers_own_address_stays_theirs(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        address = f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}@proton.me"
        reading = read_slot(frame.format(a=address))
        assert (reading.slot, reading.value) == ("email", address), frame


PLACES = ["Austin", "Brindle Falls", "Marsh Point", "Quill Harbour", "Halloran"]


def test_a_name_the_sentence_only_mentions_leaves_the_number_the_speakers() -> None:
    for place in PLACES:  # a place or a person mentioned, not whose number it is
        for said in (
            f"Got a local number since the move to {place} — (512) 555-0148.",
            f"New mobile after the trip with {place}: 07455 380 127",
        ):
            assert read_slot(said).slot == "phone", said


def test_an_arabic_statement_of_ones_own_address_keeps_it() -> None:
    for address in ("mona.sherif88@yahoo.com", "k.haddad@proton.me"):
        assert read_slot(f"الإيميل بتاعي {address}").slot == "email"
