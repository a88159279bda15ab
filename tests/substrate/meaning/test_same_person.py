"""A later "he" or "she" goes on about the one a statement names, and being in
a home is living there: the named person's value is read from their clause
as the person's own is. Names, places and homes are generated per case."""

from __future__ import annotations

import pytest

from substrate.consolidation.lifecycle import reading_of
from substrate.meaning.subjects import read_subject
from tests.made_up import names

HOMES = ["bungalow", "flat", "cottage", "maisonette"]
LEADS = [
    "{n} finally downsized, she's in a {h} in {p} now",
    "{n} sold up and he's in a {h} in {p} by the sea",
    "{n} phoned, she is in a {h} in {p} now",
]


@pytest.mark.parametrize("lead", LEADS)
def test_a_later_pronoun_is_the_named_persons_and_their_home_is_read(lead: str) -> None:
    for name, place, home in zip(names(4, len(lead)), names(4, 3 * len(lead)), HOMES, strict=True):
        said = lead.format(n=name, h=home, p=place)
        subject = read_subject(said)
        assert subject.kind == "named" and subject.name == name, (said, subject)
        reading = reading_of(said)
        assert reading.slot == "home" and reading.value is not None, (said, reading)
        assert place.lower() in reading.value, (said, reading)


def test_someone_who_sold_up_or_quit_has_not_ended() -> None:
    for name in names(4, 9):
        for said in (f"{name} sold up last year", f"{name} quit on Friday"):
            assert not any(name.lower() in e.lower() for e in reading_of(said).olds), said


@pytest.mark.parametrize("who", ["I'm", "We're", "we are"])
def test_being_in_a_home_somewhere_is_living_there(who: str) -> None:
    for place, home in zip(names(4, len(who)), HOMES, strict=True):
        said = f"{who} in a {home} in {place} now"
        reading = reading_of(said)
        assert reading.slot == "home" and reading.value is not None, (said, reading)
        assert place.lower() in reading.value, (said, reading)


@pytest.mark.parametrize("where", ["meeting", "queue", "taxi", "good mood"])
def test_being_in_what_is_no_home_names_no_home(where: str) -> None:
    for place in names(3, len(where)):
        said = f"I'm in a {where} in {place}"
        assert reading_of(said).slot != "home", said


def test_a_pronoun_after_a_quoted_speaker_is_not_rewritten() -> None:
    # a cue line is the speaker's own words: their "she" is someone else
    for name, place in zip(names(3, 5), names(3, 6), strict=True):
        said = f"{name}: my sister moved, she's in a flat in {place} now"
        assert read_subject(said).own.startswith("my sister"), said


@pytest.mark.parametrize("verb", ["retired", "resigned"])
def test_retiring_or_resigning_with_nothing_named_ends_the_work(verb: str) -> None:
    for name in names(4, len(verb)):
        for said in (f"{name} {verb} on Friday after 30 years", f"I {verb} last month"):
            reading = reading_of(said)
            assert reading.cessation and "job" in reading.olds, (said, reading)


@pytest.mark.parametrize("frame", ["{t}'s cancelled", "the {t} was sold last week"])
def test_a_passive_end_names_its_subject(frame: str) -> None:
    for name in names(4, len(frame)):
        thing = f"{name} subscription" if "cancelled" in frame else f"{name} boat"
        said = frame.format(t=thing)
        assert any(name.lower() in o for o in reading_of(said).olds), said


@pytest.mark.parametrize("verb", ["ended", "expired", "lapsed", "finished", "started"])
def test_a_named_persons_thing_is_told_as_theirs_whatever_the_verb(verb: str) -> None:
    things = ["placement", "lease", "contract", "visa"]
    for name, thing in zip(names(4, len(verb)), things, strict=True):
        said = f"{name}'s {thing} {verb} yesterday"
        subject = read_subject(said)
        assert subject.name == name and subject.own.startswith(f"My {thing} {verb}"), (
            said,
            subject,
        )


@pytest.mark.parametrize("gerund", ["living", "working", "staying"])
def test_a_gerund_after_a_names_s_is_what_they_are_doing(gerund: str) -> None:
    # the parser may hang "'s" as a possessive: "Iona's living in …" is still "is"
    for name, place in zip(names(4, len(gerund)), names(4, 2 * len(gerund)), strict=True):
        said = f"{name}'s {gerund} in {place} these days."
        subject = read_subject(said)
        assert subject.name == name and subject.own.startswith(f"I am {gerund}"), (said, subject)
