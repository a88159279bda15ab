"""Whether an Arabic statement is the person's own, read from its words' forms.

Arabic says who speaks in the word itself: a verb carries its person ("بروح"
I go, "نقلنا" we moved), and a note may leave the person out altogether, as a
diary does ("ممرضة في مستشفى الملك فهد": a nurse at …; "مشترك في فتنس
فيرست": subscribed to …). A list of such words never ends; the analyser reads
every one:

- a verb the analyser reads in the first person where a clause opens among the
  statement's first words: first, after time words or particles ("كل يوم
  بروح عالشغل"), or right after a relative ("النادي اللي أروح له"), unless a
  relative stands right after it as its subject ("انتقلت أختي");
- a verbless note that opens with a role's noun, the active participle of a
  derived verb ("مُفعِل": a plain participle such as "هاني" or "خالد" is as
  often a name), and a preposition after it ("ممرضة في …", "مشترك
  في …").

A noun with the owner's ending ("خطي", my line) is not read here: a name ends
the same way ("علي", "هاني") and nothing in the word tells them apart.

The caller asks this only after a named lead and a relative are ruled out
(`subjects`), so "سامي اتنقل" stays Sami's and "أختي انتقلت" the sister's.
"""

from __future__ import annotations

from itertools import pairwise

from substrate.meaning.arabic import (
    PUNCT,
    STOPS,
    doer_noun,
    first_person_verb,
    fold,
    has_arabic,
    is_adverb,
    only_verb,
)
from substrate.meaning.lexicon import RELATIONS_AR

# How far into a statement its first verb is looked for ("كل يوم بروح": third).
OPENING_WORDS = 5
# Prepositions a verbless note puts after its opening noun.
_RELATIVES = frozenset(fold(w) for w in "اللي إللي يلي الذي التي الذين".split())
# Nouns of time a statement may open with before its verb ("كل يوم", "كل صباح").
_TIME_NOUNS = frozenset(fold(w) for w in "يوم صباح مساء ليلة أسبوع شهر سنة مرة".split())
_PREPOSITIONS = frozenset(fold(w) for w in "في ب عند مع لدى من على".split())


def said_by_me(head: str) -> bool:
    """`head` (an Arabic statement) is the person's own, by its words' forms."""
    words = [w.strip("".join(PUNCT)) for w in head.split()]
    words = [w for w in words if w]
    if not words or not has_arabic(words[0]):
        return False
    return _first_person_verb(words) or _verbless_note(words)


def _first_person_verb(words: list[str]) -> bool:
    """A verb of the speaker's where a verb opens a clause: first, after a lead of
    time words or particles ("كل يوم بروح"), or right after a relative ("النادي
    اللي أروح له"). Elsewhere a noun may read as one ("مع أهله": his family,
    not "I …"); a time word is never one ("أمس" is yesterday, not "I touch")."""
    for at, word in enumerate(words[:OPENING_WORDS]):
        if len(word) < 3 or not has_arabic(word) or _lead_word(word):
            continue
        opens = all(_lead_word(w) for w in words[:at]) or fold(words[at - 1]) in _RELATIVES
        if opens and first_person_verb(word):
            after = words[at + 1] if at + 1 < len(words) else ""
            return after not in RELATIONS_AR
    return False


def _lead_word(word: str) -> bool:
    folded = fold(word)
    return folded in STOPS or folded in _TIME_NOUNS or is_adverb(word)


def _verbless_note(words: list[str]) -> bool:
    """ "ممرضة في مستشفى …", "مشترك في فتنس فيرست": a noun of one who does or is
    (the analyser's active participle of a derived verb), a preposition, and no
    predicate of a definite noun after them."""
    if len(words) < 3 or fold(words[1]) not in _PREPOSITIONS:
        return False
    first = fold(words[0])
    # a derived form's participle ("مشترك", "ممرضة", "موظف"), which names a role;
    # a plain one ("هاني", "خالد") is as often a name
    if not (first.startswith("م") and len(first) >= 4 and doer_noun(words[0])):
        return False
    # a verb after a definite noun is that noun's predicate ("مطعم في الرياض افتتح"); a
    # word of a name after the preposition may read as a verb ("مشترك في نادي …")
    after_article = [b for a, b in pairwise(words[2:]) if fold(a).startswith("ال")]
    return not any(only_verb(w) for w in after_article if has_arabic(w))
