"""Notes with no verb, starts set for a day ahead, and names the tagger misreads,
generated around each mechanism:

- a verbless note is the person's and takes its family's slot: a job word
  (listed or an agent noun) × at / for × an organisation; a thing of a known
  family by its head; a standing (member, patient) × an organisation;
- a present start with one coming day (or as under way) starts a value; the
  same verb with a habit's time ("on Mondays", "every day") does not;
- a made-up name after "at" is the place of work whatever tag its ending
  earns it ("Parcelly" reads as an adverb).

Names are made up per case, so no list can know them."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning.reading import read_text
from tests.substrate.meaning.test_events import made_up

ROLES = ["content producer", "senior surveyor", "florist", "paediatric nurse", "technician"]
ORGS = ["{N} Media", "{N} Logistics", "{N} and Sons", "the {N} Group"]


def _org(rng: random.Random, frame: str) -> str:
    return frame.format(N=made_up(rng, rng.choice([2, 3])))


def _note_cases(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    grid = list(itertools.product(ROLES, ["at", "for"], ORGS))
    rng.shuffle(grid)
    out = []
    for role, prep, frame in grid[:n]:
        org = _org(rng, frame)
        out.append((f"{role} {prep} {org}", org.removeprefix("the ")))
    return out


@pytest.mark.parametrize(("note", "org"), _note_cases(5, 16))
def test_a_job_word_before_an_organisation_is_where_the_person_works(note: str, org: str) -> None:
    reading = read_text(note)
    assert reading.subject.kind == "me"
    assert reading.slot.slot == "employer", note
    assert reading.slot.value is not None and org.split()[0].lower() in reading.slot.value


@pytest.mark.parametrize(
    ("head", "slot"),
    [("flat", "home"), ("bungalow", "home"), ("cottage", "home"), ("membership", "membership")],
)
def test_a_verbless_note_of_a_known_family_takes_its_slot(head: str, slot: str) -> None:
    place = made_up(random.Random(head), 3)
    reading = read_text(f"{head} in {place}")
    assert reading.subject.kind == "me"
    assert reading.slot.slot == slot


@pytest.mark.parametrize(
    ("standing", "slot"),
    [("member of", "membership"), ("patient at", "provider"), ("customer of", "provider")],
)
def test_a_standing_with_an_organisation_gives_it_the_family(standing: str, slot: str) -> None:
    org = _org(random.Random(standing), "{N} Surgery" if "patient" in standing else "{N} Club")
    found = read_text(f"{standing} {org}").slot.slot or ""
    assert found.split(":")[0] == slot


@pytest.mark.parametrize(
    "note",
    ["dentist appointment at {N} Clinic", "lunch with {N} at the café", "meeting at {N} House"],
)
def test_a_note_whose_head_names_no_family_takes_no_slot(note: str) -> None:
    said = note.format(N=made_up(random.Random(note), 2))
    assert read_text(said).slot.slot is None


WHEN_AHEAD = ["on Monday", "next week", "on the 3rd", "tomorrow"]
HABIT = ["on Mondays", "every day", "every morning at nine"]


@pytest.mark.parametrize(("when", "org"), list(itertools.product(WHEN_AHEAD, ORGS[:2])))
def test_a_present_start_set_for_a_day_ahead_starts_the_value(when: str, org: str) -> None:
    name = _org(random.Random(when + org), org)
    for said in (f"I start at {name} {when}.", f"We're starting at {name} {when}"):
        reading = read_text(said)
        assert reading.slot.slot == "employer", said
        assert reading.slot.change, said


@pytest.mark.parametrize("when", HABIT)
def test_a_present_start_said_as_a_habit_starts_nothing(when: str) -> None:
    name = _org(random.Random(when), ORGS[0])
    assert not read_text(f"I start at {name} {when}.").slot.change


@pytest.mark.parametrize("seed", range(6))
def test_a_made_up_name_after_at_is_a_place_of_work_whatever_its_tag(seed: str) -> None:
    rng = random.Random(seed)
    name = made_up(rng, 2) + rng.choice(["ly", "ful", "ous", "al"])
    for said in (f"I start at {name} on Monday.", f"Anyway — I start at {name} on Monday!!"):
        reading = read_text(said)
        assert reading.slot.slot == "employer", said
        assert name.lower() in (reading.slot.value or ""), said
