"""What a sentence is, for the offline extractor: a user's turn cut into
sentences and the asides inside them, a sentence into its clauses, and a kept
statement tidied. No judgement of what a sentence says lives here
(`statements` does that)."""

from __future__ import annotations

import itertools

MAX_SENTENCE = 400  # characters a pattern reads; a longer sentence is cut at a clause
ENDS = ".!?؟"
# A stop after these is not a sentence's end ("Dr. Patel", "St. Mary's", "Mt. Fuji").
ABBREVIATIONS = frozenset(
    "dr mr mrs ms mt st jr sr prof vs etc no approx dept inc ltd co ave blvd rd e.g i.e "
    "a.m p.m u.s u.k".split()
)
ASIDES = (" by the way", " btw", " anyway,", " oh and", " speaking of ")
CLAUSE_BREAKS = (", ", "; ", " - ", " — ", " and I ", " and my ", " and we ")


def sentence_pieces(text: str) -> list[tuple[int, str]]:
    """Sentences (a stop and a space, or a line break, ends one) and the asides
    inside them ("…, by the way, I …"), with where each starts."""
    cuts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n"), *sentence_ends(text)]
    lowered = text.lower()
    for aside in ASIDES:
        at = lowered.find(aside)
        while at >= 0:
            cuts.append(at + 1)
            at = lowered.find(aside, at + 1)
    bounds = [*sorted(set(cuts)), len(text)]
    return [(a, text[a:b]) for a, b in itertools.pairwise(bounds) if text[a:b].strip()]


def sentence_ends(text: str) -> list[int]:
    """Where sentences end: after a stop followed by a space, unless the stop ends
    an abbreviation or an initial ("Dr. Patel", "J. Smith")."""
    ends = []
    for i, ch in enumerate(text):
        if ch in ENDS and i + 1 < len(text) and text[i + 1].isspace():
            word = text[max(0, i - 5) : i].rsplit(" ", 1)[-1].lower()
            if ch != "." or (word not in ABBREVIATIONS and not (len(word) == 1 and word.isalpha())):
                ends.append(i + 1)
    return ends


def clauses_of(sentence: str) -> list[str]:
    cuts = {0}
    for mark in CLAUSE_BREAKS:
        at = sentence.find(mark)
        while at >= 0:
            cuts.add(at + (len(mark) if mark[-2:] != "I " and not mark.startswith(" and") else 5))
            at = sentence.find(mark, at + 1)
    bounds = [*sorted(cuts), len(sentence)]
    return [sentence[a:b].strip(" ,;-–—") for a, b in itertools.pairwise(bounds)]


def word_list(sentence: str) -> list[str]:
    return [w.strip(',.;:!"()').lower() for w in sentence.split()]


def within_reach(sentence: str) -> str:
    """A sentence too long to read whole: up to its last clause break in range."""
    head = sentence[:MAX_SENTENCE]
    cut = max(head.rfind(", "), head.rfind("; "), head.rfind(" - "))
    return head[:cut] if cut > MAX_SENTENCE // 3 else head.rsplit(" ", 1)[0]


def tidy(sentence: str) -> str:
    sentence = sentence.strip()
    if sentence[:1].islower():
        sentence = sentence[0].upper() + sentence[1:]
    if sentence[-1:] not in ".!":
        sentence += "."
    return sentence
