"""Frames that hand on someone else's words, read from the parse, generated
around the mechanism: a communication (or an act of passing one on) × where
it comes from (a `from` phrase, an owner) × the separator × a first-person
statement after it. The near misses: a label the person heads their own words
with, their own clause before the dash, and their own communication."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning.attribution import attribute
from substrate.meaning.frames import framed
from substrate.meaning.reading import read_text
from tests.substrate.meaning.test_events import made_up

LEADS = [
    "Forwarding this from {s}",
    "Screenshot from {s}'s chat",
    "From {s}'s email",
    "{s}'s text",
    "A voicemail from {s}",
    "Pasted from {s}",
    "Copied from the message {s} sent",
]
SOURCES = ["Dad", "my sister {n}", "{n}", "the group chat"]
SEPARATORS = [":", " —", " -"]
STATEMENTS = [
    "I'm moving to {p} in May.",
    "I had my knee surgery at {p} on Tuesday.",
    "we adopted a dog called {p}.",
]


def _source(rng: random.Random, frame: str) -> str:
    return frame.format(n=made_up(rng, 2))


def _cases(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    grid = list(itertools.product(LEADS, SOURCES, SEPARATORS, STATEMENTS))
    rng.shuffle(grid)
    out = []
    for lead, source, mark, statement in grid[:n]:
        who = _source(rng, source)
        if "{s}'s" in lead and who.startswith("the "):
            who = who.removeprefix("the ")
        place = made_up(rng, 3)
        out.append(f"{lead.format(s=who)}{mark} {statement.format(p=place)}")
    return out


@pytest.mark.parametrize("text", _cases(30, 3))
def test_words_after_a_frame_that_hands_them_on_are_not_the_persons(text: str) -> None:
    assert framed(text) is not None
    reading = read_text(text)
    assert reading.passed_on, reading.attribution
    assert "from" not in attribute(text).passed.lower()[:5]


@pytest.mark.parametrize(
    "lead",
    ["Note", "Update", "Big news", "Quick update from me", "My new email", "Reminder to self"],
)
@pytest.mark.parametrize("mark", [":", " —"])
def test_a_label_on_the_persons_own_words_hands_nothing_on(lead: str, mark: str) -> None:
    place = made_up(random.Random(lead + mark), 3)
    text = f"{lead}{mark} I moved to {place} last week."
    assert framed(text) is None
    assert not read_text(text).passed_on


@pytest.mark.parametrize(
    "lead",
    ["I forwarded the email to {n}", "I sent {n} a text", "We got a message from {n} yesterday"],
)
def test_the_persons_own_clause_before_the_dash_is_theirs(lead: str) -> None:
    rng = random.Random(lead)
    text = f"{lead.format(n=made_up(rng, 2))} — I start at {made_up(rng, 3)} on Monday."
    assert framed(text) is None


@pytest.mark.parametrize("text", _cases(6, 5))
def test_the_speaker_is_who_the_frame_names(text: str) -> None:
    said = attribute(text)
    if said.speaker is not None:
        assert not said.speaker.lower().startswith("from ")
        assert said.speaker.split()[-1].strip("'s") in text
