"""Whose words by structure, generated around each mechanism: a quotation in
single quotes is found whatever apostrophes it holds ("we're", "Sam's"), a
colon or a request opens one whatever its length, and only the quotation is
passed on: the person's own clause after it is theirs. Speakers, places and
wordings are made up per case."""

from __future__ import annotations

import random

import pytest

from substrate.meaning.attribution import OWN, PASSED_ON, attribute
from tests.substrate.meaning.test_events import made_up

SAYERS = ["Tom texted", "My sister keeps saying", "Dad wrote", "My mate swears by", "Priya joked"]
QUOTED = [
    "we're in {p} now, come for a bbq",
    "I'm moving to {p} in May, can't wait",
    "{p}'s the only place worth living, trust me",
    "you should've picked {p}, it's so much nicer",
]
OWN_AFTER = [
    "but I've just signed up at {q} Gym since the move",
    "— funny timing, we moved into our place in {q} on Saturday!",
    "anyway I've started at {q} Labs this week",
]


@pytest.mark.parametrize("sayer", SAYERS)
@pytest.mark.parametrize("mark", [("'", "'"), ("‘", "’")])
def test_only_the_quotation_is_passed_on_and_the_own_clause_after_it_is_theirs(
    sayer: str, mark: tuple[str, str]
) -> None:
    rng = random.Random(sayer + mark[0])
    for _ in range(3):
        place, own_place = made_up(rng), made_up(rng)
        quoted = rng.choice(QUOTED).format(p=place)
        own = rng.choice(OWN_AFTER).format(q=own_place)
        said = attribute(f"{sayer} {mark[0]}{quoted}{mark[1]} {own}")
        assert said.voice == OWN, said
        assert own_place in said.own and place not in said.own, said
        assert place in said.passed, said


@pytest.mark.parametrize(
    "frame",
    [
        "Line from the film I just watched: {q} — iconic",
        "Podcast host: {q} so jealous",
        "help me write a first-person bio for my cousin: {q}",
        "Can you write a post for my dad: {q}",
    ],
)
def test_a_quotation_a_colon_opens_is_passed_on_however_short(frame: str) -> None:
    rng = random.Random(frame)
    for quoted in ("'I drive a {n} now'", "'Medication: {n} inhaler'", "‘{n} forever’"):
        name = made_up(rng)
        said = attribute(frame.format(q=quoted.format(n=name)))
        assert said.voice == PASSED_ON and name in said.passed, said


@pytest.mark.parametrize(
    "ask", ["can you help me fill out this form for my son?", "Could you tidy this up?"]
)
def test_a_quotation_after_a_request_is_text_to_work_on(ask: str) -> None:
    rng = random.Random(ask)
    for _ in range(3):
        name = made_up(rng)
        said = attribute(f"{ask} 'Conditions: asthma. Medication: {name} inhaler'")
        assert said.voice == PASSED_ON and name in said.passed, said


@pytest.mark.parametrize(
    "text",
    [
        "I'm at {n}'s place, it's the kids' party today",
        "We're keeping the dogs' beds at {n}'s until the move",
        "It's {n}'s turn to host and I'm bringing the cake",
    ],
)
def test_apostrophes_are_never_read_as_quotation_marks(text: str) -> None:
    rng = random.Random(text)
    for _ in range(3):
        said = attribute(text.format(n=made_up(rng)))
        assert said.voice == OWN and said.passed == "", said


@pytest.mark.parametrize("sayer", SAYERS)
def test_a_page_gets_the_persons_own_words_never_the_quotation_beside_them(sayer: str) -> None:
    from substrate.meaning.attribution import own_words

    rng = random.Random(sayer + "page")
    for _ in range(3):
        place, own_place = made_up(rng), made_up(rng)
        text = f"{sayer} '{rng.choice(QUOTED).format(p=place)}' {rng.choice(OWN_AFTER).format(q=own_place)}"
        words = own_words(text)
        assert own_place in words and place not in words, (text, words)
    plain = f"I moved to {made_up(rng)} in May"
    assert own_words(plain) == plain


@pytest.mark.parametrize("frame", ["كتبت لي زميلتي: '{q}' — {o}", "{s} قال '{q}' على كل حال، {o}"])
def test_an_arabic_quotation_is_passed_on_and_the_own_words_after_it_kept(frame: str) -> None:
    from substrate.meaning.attribution import own_words

    for place, own_place in (("المحرق", "دلة"), ("الخبر", "الدمام"), ("جدة", "الطائف")):
        text = frame.format(
            s="أستاذي",
            q=f"أنا راحلة إلى مستشفى {place} بعد العيد",
            o=f"أما أنا فانتقلت إلى مستشفى {own_place}",
        )
        said = attribute(text)
        assert place in said.passed and own_place in own_words(text), (text, said)
        assert place not in own_words(text)
