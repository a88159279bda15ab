"""An Arabic statement is the person's own by its words' forms: a verb of the
speaker's where a clause opens (first, after a lead of time words, or after a
relative), or a verbless note opened by a role's noun; a named lead, a
relative after the verb, a noun read as a verb in mid-sentence and a time word
keep it someone else's or no one's. A name that reads as a verb of the
speaker's ("أحمد") and kin title a page; "على" written onto a noun opens
none. Names and places are made up."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.meaning import read_text
from substrate.meaning.arabic_person import said_by_me
from substrate.meaning.words import title_problem
from tests.made_up import arabic_name

VERBS = ["بروح", "أروح", "بشتغل", "نقلنا", "اشتريت", "سافرنا"]
LEADS = ["", "كل يوم ", "الحين ", "كل صباح "]
RELATIVE = "المكان اللي {v} له {p}"
ROLES = ["ممرضة", "مشترك", "موظفة", "مدير", "مهندس", "معلمة"]
PREPOSITIONS = ["في", "لدى", "عند"]
PLACES = ["مستشفى {p}", "شركة {p}", "نادي {p}"]
RELATIVES_AFTER = ["أختي", "أخوي", "أمي"]


def _place(seed: str) -> str:
    return arabic_name(random.Random(seed))


@pytest.mark.parametrize(("lead", "verb"), list(itertools.product(LEADS, VERBS)))
def test_a_speakers_verb_where_a_clause_opens_is_the_persons(lead: str, verb: str) -> None:
    said = f"{lead}{verb} على {_place(lead + verb)} بالسيارة"
    assert said_by_me(said), said
    assert read_text(said).subject.kind == "me", said


@pytest.mark.parametrize("verb", ["أروح", "أشتغل", "بروح"])
def test_a_speakers_verb_after_a_relative_is_the_persons(verb: str) -> None:
    said = RELATIVE.format(v=verb, p=_place(verb))
    assert said_by_me(said), said


@pytest.mark.parametrize(
    ("role", "prep", "place"), list(itertools.product(ROLES, PREPOSITIONS, PLACES))
)
def test_a_verbless_note_opened_by_a_role_is_the_persons(role: str, prep: str, place: str) -> None:
    where = place.format(p=_place(role + place))
    said = f"{role} {prep} {where}"
    assert said_by_me(said), said


@pytest.mark.parametrize("verb", ["انتقلت", "سافرت", "اشتغلت"])
@pytest.mark.parametrize("relative", RELATIVES_AFTER)
def test_a_relative_after_the_verb_is_its_subject(verb: str, relative: str) -> None:
    assert not said_by_me(f"{verb} {relative} إلى دبي")


@pytest.mark.parametrize(
    "said",
    [
        "هاني مع أهله في العيد",
        "خالد في المستشفى من أمس",
        "مطعم في الرياض افتتح أمس",
        "الجو حار اليوم",
        "منتخب الكرة فاز أمس",
    ],
)
def test_names_nouns_read_as_verbs_and_time_words_are_not_the_persons(said: str) -> None:
    assert not said_by_me(said), said


@pytest.mark.parametrize("name", ["أحمد", "أمجد", "بشير", "نبيل"])
def test_a_name_that_reads_as_a_speakers_verb_still_titles_a_page(name: str) -> None:
    assert title_problem(f"{name} (brother)") is None


@pytest.mark.parametrize("kin", ["أخوي", "اخوي", "أمي", "ولد عمي"])
def test_kin_titles_a_page(kin: str) -> None:
    assert title_problem(kin) is None


@pytest.mark.parametrize("word", ["عالشغل", "عالبيت", "عالمدرسة"])
def test_on_written_onto_a_noun_opens_no_title(word: str) -> None:
    assert title_problem(f"{word} {_place(word)}") is not None
