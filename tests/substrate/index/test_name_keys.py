"""Name keys: a Latin-script name in a query meets its Arabic spelling on a page."""

from __future__ import annotations

import pytest

from substrate.index import STOPWORDS, tokenize
from substrate.index.name_keys import KEY_PREFIX, page_keys, query_keys

SAME_NAMES = [
    ("Tesla", "تسلا"),
    ("Denver", "دنفر"),
    ("Panthers", "بانثرز"),
    ("Matlin", "ماتلين"),
    ("Philadelphia", "فيلادلفيا"),
    ("Denmark", "الدنمارك"),  # the article goes
    ("Tesla", "تِسْلا"),  # vowel marks go
    ("Santa", "وسانتا"),  # so does an attached "and"
]


def _key(arabic: str) -> str:
    (key,) = page_keys(arabic)
    return key


@pytest.mark.parametrize(("latin", "arabic"), SAME_NAMES)
def test_a_name_and_its_arabic_spelling_share_a_key(latin: str, arabic: str) -> None:
    assert _key(arabic) in query_keys(f"Where did {latin} live?", STOPWORDS)


def test_different_names_get_different_keys() -> None:
    keys = {_key(a) for _, a in SAME_NAMES if a in ("تسلا", "دنفر", "بانثرز", "ماتلين")}
    assert len(keys) == 4


def test_only_capitalised_words_inside_a_sentence_are_names() -> None:
    keys = query_keys("Tesla moved. Later Denver and the Panthers met tesla", STOPWORDS)
    # "Tesla" and "Later" open sentences; lowercase "tesla" is not taken for a name.
    assert set(keys) == {KEY_PREFIX + "dnfr", KEY_PREFIX + "bntrs", KEY_PREFIX + "bntr"}


def test_a_plural_name_also_looks_for_its_singular() -> None:
    assert _key("برونكو") in query_keys("Who beat the Broncos?", STOPWORDS)


def test_stopwords_and_short_skeletons_make_no_key() -> None:
    assert query_keys("What did The Who and Gaga sing?", STOPWORDS) == []
    assert page_keys("غاغا") == []  # one consonant after merging: matches too much


def test_english_text_gets_no_page_keys_and_keys_never_meet_words() -> None:
    assert page_keys("Nikola Tesla lived in New York") == []
    words = tokenize("Nikola Tesla ~tsl تسلا")
    assert not any(w.startswith(KEY_PREFIX) for w in words)
