"""A note labelled with a kind of thing the person has one of is theirs, read
as "My <label> is …"; a first day, week or month at a named place is a start
of work there, in English and Arabic; "خاطب/خاطبة" names the partner. Names
are made up per case; labels and frames are combined."""

from __future__ import annotations

import random

import pytest

from substrate.meaning.reading import read_text
from tests.made_up import arabic_name, made_up

ROLES = ["backend dev", "staff nurse", "sous chef", "junior accountant"]


def _org(rng: random.Random) -> str:
    return f"{made_up(rng)} {rng.choice(['Labs', 'Group', 'Health', 'Logistics'])}"


@pytest.mark.parametrize("label", ["day job", "Job", "work", "Current job"])
@pytest.mark.parametrize("mark", [":", " -", " —"])
def test_a_note_labelled_with_a_job_word_names_the_employer(label: str, mark: str) -> None:
    rng = random.Random(label + mark)
    for role in ROLES:
        org = _org(rng)
        text = f"{label}{mark} {role} at {org}, mostly {rng.choice(['Go', 'nights', 'admin'])}"
        reading = read_text(text)
        assert reading.subject.kind == "me", text
        # the job's place, or (told as "my job is …") the role: either is the person's work
        told = (reading.slot.slot, reading.slot.value)
        assert told in (("employer", org.lower()), ("role", role)), (text, reading)


@pytest.mark.parametrize(
    "label,slot", [("Car", "vehicle:car"), ("Gym", "provider:gym"), ("Dentist", "provider:dentist")]
)
def test_a_note_labelled_with_a_kind_reads_its_family(label: str, slot: str) -> None:
    rng = random.Random(label)
    for _ in range(4):
        name = made_up(rng)
        value = f"a silver Honda {name}" if label == "Car" else f"{name}Care on Mill Lane"
        reading = read_text(f"{label}: {value}")
        assert reading.subject.kind == "me" and reading.slot.slot == slot, (value, reading)


def test_a_label_naming_no_kind_is_not_the_persons_value() -> None:
    rng = random.Random(3)
    for label in ["Note", "Idea", "Recipe", "Quote"]:
        text = f"{label}: {made_up(rng)} Labs is hiring"
        assert read_text(text).slot.slot is None, text


@pytest.mark.parametrize(
    "frame",
    [
        "first week at {o} done, new laptop",
        "My first day at {o} was fine",
        "Had my first shift with {o} today!",
        "first month at {o} and I love it",
    ],
)
def test_a_first_day_or_week_at_a_named_place_starts_work_there(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        org = _org(rng)
        reading = read_text(frame.format(o=org))
        assert (reading.slot.slot, reading.slot.value) == ("employer", org.lower()), reading


def test_a_first_day_somewhere_unnamed_names_no_employer() -> None:
    for text in ["first day at the new place", "my first week at school went fine"]:
        assert read_text(text).slot.slot != "employer", text


@pytest.mark.parametrize(
    "frame", ["أول أسبوع لي في {o} خلص", "أول يوم في {o} كان حلو", "اول شهر ب{o}"]
)
def test_an_arabic_first_day_or_week_at_a_place_starts_work_there(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        org = arabic_name(rng)
        reading = read_text(frame.format(o=org))
        assert (reading.slot.slot, reading.slot.value) == ("employer", org), reading


@pytest.mark.parametrize("frame", ["ودلوقتي خاطب {n}", "أنا خاطبة {n} من شهرين"])
def test_betrothed_to_someone_names_the_partner_in_arabic(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        name = arabic_name(rng)
        reading = read_text(frame.format(n=name))
        assert (reading.slot.slot, reading.slot.value) == ("partner", name), reading
