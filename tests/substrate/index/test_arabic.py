"""Arabic folding and BM25 tokens: spellings a reader treats as one word meet."""

from __future__ import annotations

import pytest

from substrate.index import fold_arabic, strip_marks, tokenize


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("كَتَبَ", "كتب"),  # short vowels
        ("كـتـاب", "كتاب"),  # tatweel
        ("أحمد", "احمد"),  # hamza above alef
        ("إسلام", "اسلام"),  # hamza below alef
        ("آمن", "امن"),  # madda
        ("مدرسة", "مدرسه"),  # ta marbuta
        ("ليلى", "ليلي"),  # alef maqsura
        ("سؤال", "سوال"),  # hamza on waw
    ],
)
def test_folding_removes_marks_and_unifies_letter_variants(written: str, folded: str) -> None:
    assert fold_arabic(written) == folded


def test_other_scripts_pass_through_untouched() -> None:
    assert fold_arabic("Crème brûlée") == "Crème brûlée"
    assert strip_marks("naïve") == "naïve"


def test_vowelled_and_bare_text_give_the_same_tokens() -> None:
    assert tokenize("ذَهَبَ الوَلَدُ إلى المَدْرَسَةِ") == tokenize("ذهب الولد الى المدرسة")


def test_marks_never_split_a_word() -> None:
    assert len(tokenize("المَدْرَسَةِ")) == 1


def test_inflected_and_prefixed_forms_meet_and_stopwords_drop() -> None:
    [school] = tokenize("مدرسة")
    assert tokenize("بالمدرسة") == [school]  # "in the school"
    assert tokenize("في المدرسة") == [school]  # "في" is a stopword
    assert tokenize("مدرستها") == [school]  # "her school"


def test_mixed_script_text_stems_each_word_in_its_language() -> None:
    assert tokenize("Layla visited القاهرة") == ["layla", "visit", tokenize("القاهرة")[0]]
