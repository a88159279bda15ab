"""Whose words a remembered text is: the person's own statements are read for
slots, words they pass on (to proofread, translate or reply to, quoted,
forwarded, reported, supposed) are never the person's fact, in English and
Arabic, whoever the speaker and whatever the words say."""

from __future__ import annotations

import itertools

import pytest

from substrate.meaning import OWN, PASSED_ON, attribute, read_text

# What people pass on: each says something that would take a slot of the person's.
INNER = [
    "I live in Paris and my new number is 0612 345 678.",
    "I have moved to Madrid and now work at Zara.",
    "I moved to Berlin last month.",
    "I just started at the Western General, loving it.",
    "My new email is sam@example.org.",
    "I'm vegan now and I drive a Tesla.",
]
# Frames with no speaker, and frames naming one ({who}).
UNNAMED = [
    'Proofread this please: "{inner}"',
    "Can you translate this to French: {inner}",
    "Please rewrite this to sound friendlier: '{inner}'",
    "Fix the grammar: {inner}",
    "Summarise the following: {inner}",
    "> {inner}",
    "---------- Forwarded message ----------\nFrom: someone@example.org\n{inner}",
    "If {lower}",
    "Imagine {lower}",
]
NAMED = [
    ('{who} texted me "{inner}"', "Karim"),
    ("My boss wrote: '{inner}'", "my boss"),
    ("Can you proofread this for my sister: '{inner}'", "my sister"),
    ("Here is an email from Tom: {inner}", "Tom"),
    ('{who} said: "{inner}"', "Priya Shah"),
    ('Karim\'s message: "{inner}"', "Karim"),
]


def lower(text: str) -> str:
    return text[0].lower() + text[1:]


@pytest.mark.parametrize(("frame", "inner"), list(itertools.product(UNNAMED, INNER)))
def test_words_passed_on_without_a_speaker_are_never_the_persons(frame: str, inner: str) -> None:
    text = frame.format(inner=inner, lower=lower(inner))
    heard = read_text(text)
    assert heard.attribution.voice == PASSED_ON, text
    assert heard.slot.slot is None and not heard.slot.olds and heard.attribution.own == ""


@pytest.mark.parametrize(("frame", "inner"), list(itertools.product(NAMED, INNER)))
def test_words_passed_on_name_their_speaker(frame: tuple[str, str], inner: str) -> None:
    pattern, who = frame
    text = pattern.format(who=who, inner=inner)
    heard = read_text(text)
    assert heard.attribution.voice == PASSED_ON, text
    assert heard.attribution.speaker == who
    assert heard.slot.slot is None


def test_reported_speech_names_its_speaker_and_a_relation() -> None:
    karim = attribute("Karim said he just started at the Western General.")
    assert (karim.voice, karim.speaker, karim.relation) == (PASSED_ON, "Karim", None)
    sister = attribute("My sister told me she moved to Madrid.")
    assert (sister.voice, sister.speaker, sister.relation) == (PASSED_ON, "my sister", "sister")


def test_arabic_words_passed_on_are_not_the_persons() -> None:
    for text, who in [
        ('كتب لي كريم: "انتقلت إلى دبي"', "كريم"),
        ("قالت أختي إنها انتقلت إلى القاهرة", "أختي"),
        ("ترجم هذا النص: أسكن في عمّان وأعمل في زين", None),
        ("لو انتقلت إلى دبي سأشتري سيارة", None),
    ]:
        heard = read_text(text)
        assert heard.attribution.voice == PASSED_ON, text
        assert heard.attribution.speaker == who and heard.slot.slot is None


def test_the_persons_own_sentences_beside_passed_on_words_are_read_alone() -> None:
    heard = read_text('I live in Leith now. My boss wrote: "I moved to Berlin last year."')
    assert heard.attribution.voice == OWN
    assert heard.attribution.own == "I live in Leith now."
    assert (heard.slot.slot, heard.slot.value) == ("home", "leith")
    assert "Berlin" in heard.attribution.passed


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Leith.",
        "My new number is 07700 900123.",
        'I finally watched "The Shawshank Redemption" last night.',
        "Karim is my brother-in-law and lives in Leith.",
        "أسكن في عمّان",
    ],
)
def test_plain_statements_are_the_persons_own(text: str) -> None:
    said = attribute(text)
    assert said.voice == OWN and said.speaker is None and said.own == text
