"""Arabic as the dialects write it: a name that opens a statement before a verb
is its subject ("منة اتنقلت دبي"); the "ات" form of a move ("اتنقلت") and a
participle with "ي" for its hamza ("عايشة") read as living somewhere; a move
may leave its preposition out; a home told as new names where it is; the
dialects' words for kin name a relative; a preposition written onto a noun
("بمدرسة") is no name. Names and places are made up."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning.arabic import clitic_noun, named_lead, readings_of, verb_lemma
from substrate.meaning.arabic_places import dwelling
from substrate.meaning.reading import read_text
from tests.made_up import arabic_noun_name

MOVES = ["{n} اتنقلت {p} مع جوزها", "{n} انتقلت إلى {p} الشهر ده", "{n} انتقل على {p} من أسبوع"]
NOT_NAMES = ["شغلي انتهى", "سيارتي تعطلت", "أنا انتقلت", "خلاص تركت الشغل", "البيت صار فاضي",
             "ماشية بكيا بيكانتو", "أسكن في جدة", "بصراحة تعبت"]  # fmt: skip


@pytest.mark.parametrize("frame", MOVES)
def test_a_name_before_a_verb_is_the_subject_and_its_move_a_home(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(4):
        name, place = arabic_noun_name(rng), arabic_noun_name(rng)
        reading = read_text(frame.format(n=name, p=place))
        assert (reading.subject.kind, reading.subject.name) == ("named", name), frame
        assert reading.slot.slot == "home" and reading.slot.value == place, reading.slot


@pytest.mark.parametrize("said", NOT_NAMES)
def test_a_possessed_noun_a_pronoun_an_adverb_or_a_verb_is_no_name(said: str) -> None:
    assert named_lead(said) is None


@pytest.mark.parametrize(
    ("lives", "where"),
    list(itertools.product(["عايشة في", "عايش في", "ساكنة في", "تعيش في"], ["{p}", "مدينة {p}"])),
)
def test_a_participle_of_living_in_a_dialects_spelling_names_the_home(
    lives: str, where: str
) -> None:
    rng = random.Random(lives + where)
    place = where.format(p=arabic_noun_name(rng))
    assert dwelling(f"أختي {lives} {place}") == place


@pytest.mark.parametrize(
    "frame",
    ["استلمنا مفتاح الشقة الجديدة في {p}", "بيتنا الجديد في {p}", "نقلنا عالمنزل الجديد في {p}"],
)
def test_a_home_told_as_new_names_where_it_is(frame: str) -> None:
    rng = random.Random(frame)
    for _ in range(3):
        place = arabic_noun_name(rng)
        assert dwelling(frame.format(p=place)) == place


@pytest.mark.parametrize("said", ["أكلت عيش وفول", "انتقلت امبارح", "سيارتي الجديدة في الكراج"])
def test_bread_a_day_or_a_new_car_is_no_home(said: str) -> None:
    assert dwelling(said) == ""


@pytest.mark.parametrize(("kin", "relation"), [("أخوي", "brother"), ("بنتي", "daughter"),
                                               ("جوزي", "husband"), ("خالتي", "aunt")])  # fmt: skip
def test_the_dialects_words_for_kin_name_a_relative(kin: str, relation: str) -> None:
    rng = random.Random(kin)
    name = arabic_noun_name(rng)
    subject = read_text(f"{kin} {name} يدرس في جامعة {arabic_noun_name(rng)}").subject
    assert (subject.kind, subject.name, subject.relation) == ("named", name, relation)


def test_a_preposition_on_a_noun_is_no_name_but_a_name_may_share_its_letter() -> None:
    assert all(clitic_noun(w) for w in ("بمدرسة", "لمحمية", "بالبيت", "بشركة"))
    assert not any(clitic_noun(w) for w in ("بسمة", "بهية", "لمى", "ليلى", "بثينة"))
    assert read_text("ابني بمدرسة الأهلية").subject.name != "بمدرسة"


@pytest.mark.parametrize("home", ["بيتنا", "شقتي", "منزلنا"])
def test_the_speakers_own_home_opening_a_clause_names_where_it_is(home: str) -> None:
    rng = random.Random(home)
    place = arabic_noun_name(rng)
    assert dwelling(f"{home} في {place}") == place
    assert dwelling(f"صحيح، {home} في {place} من زمان") == place
    assert dwelling(f"ترتيب {home} في {place} متعب") == ""  # mid-clause: what happened there
    assert dwelling(f"البيت في {place}") == ""  # any house, not the speaker's


@pytest.mark.parametrize("quote", ["'", '"', "‘", "“"])
def test_a_quote_on_a_word_reads_as_the_word_and_breaks_no_query(
    quote: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for word in ("مبروك", "انتقلت", "البيت"):
        assert len(readings_of(f"{quote}{word}")) == len(readings_of(word))
        assert verb_lemma(f"{word}{quote}") == verb_lemma(word)
    assert capsys.readouterr().out == ""  # the analyser prints a failed query
