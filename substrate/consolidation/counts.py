"""Two statements of one amount, so the newer replaces the older.

- A **recount**: the same thing counted again ("I've added 17 postcards
  since…" then "…25 postcards since…"): the numbers differ, and either most
  of their words are shared, or a number counts the same unit in both ("6
  months" and "9 months", "page 200" and "page 220") with a few more words in
  common.
- A **new measure**: an amount in a unit of measure changed, said with a verb
  of raising or lowering ("been taking 50mg sertraline" then "GP's bumped my
  dose up to 100mg"; "أتناول كونكور ٥ ملغ" then "رفع الطبيب جرعة الكونكور
  إلى ١٠ ملغ"; "rent is £1,100" then "the rent went up to £1,250"), or with
  a word of replacement ("I'm on 100mg now"). The unit is what follows the
  number, written onto it or after it ("50mg", "٥ ملغ") or a currency before
  it ("£1,250"); the verb is read by the parse (English) or the analyser
  (Arabic). A time of day is not a measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from substrate.consolidation.when import without_dates
from substrate.meaning.arabic import fold, has_arabic, verb_lemma
from substrate.meaning.parser import clauses
from substrate.meaning.slot_rules import REPLACING_AR, REPLACING_EN
from substrate.safety import linear

FRAME_WORDS = 3  # shared content words, at least
FRAME_SHARE = 0.5  # of the shorter fact's content words
UNIT_WORDS = 3  # other shared content words when a number counts the same unit in both
_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "first": "1",
    "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7",
    "eighth": "8", "ninth": "9", "tenth": "10", "dozen": "12", "twenty": "20",
}  # fmt: skip
_FRAME_STOP = frozenset(
    "a an the of to in on at for and or is are was were be been i my me it this that i'm i've "
    "so but by with from as just have has had do did you your we our now so far already by way "
    "speaking which really actually also about since new just realized think".split()
)
_CURRENCY = "£$€¥₹"
_CLITICS = "لب"  # Arabic prepositions written onto a number
_CLOCK = frozenset("am pm a.m p.m h hr hrs".split())  # a time of day, not an amount of something
# Verbs that raise or lower an amount (lemmas; Arabic folded).
AMOUNT_VERBS = frozenset(
    "raise increase bump up lower reduce cut drop double halve decrease adjust go put".split()
)
AMOUNT_VERBS_AR = frozenset(fold(w) for w in "رفع زاد زود خفض قلل نزل ضاعف عدل".split())
_RAISED = frozenset("up down".split())  # "bumped it up", "went down"
_ONLY_RAISED = frozenset("go put up".split())  # an amount verb only with "up" or "down"
_REPLACING_EN = linear(REPLACING_EN)
_REPLACING_AR = linear(REPLACING_AR)


@dataclass(frozen=True)
class Frame:
    words: frozenset[str]
    numbers: frozenset[str]
    units: frozenset[str] = frozenset()  # what a number counts: the word after it
    # (number, unit) where the unit is one of measure or money: "50mg", "£1250"
    measures: frozenset[tuple[str, str]] = frozenset()


def recounts(old: str, new: str) -> bool:
    """`new` states the same thing as `old` with another count (see the module doc)."""
    a, b = frame_of(old), frame_of(new)
    shared = a.words & b.words
    if not (a.numbers and b.numbers) or a.numbers == b.numbers:
        return False
    if len(shared) >= FRAME_WORDS and len(shared) >= FRAME_SHARE * min(len(a.words), len(b.words)):
        return True
    return bool(a.units & b.units) and len(shared - a.units - b.units) >= UNIT_WORDS


def remeasures(old: str, new: str) -> bool:
    """`new` gives another amount in a unit of measure `old` states, and says the
    amount changed (see the module doc)."""
    a, b = frame_of(old), frame_of(new)
    units = {u for _, u in a.measures} & {u for _, u in b.measures}
    if not units:
        return False
    if {m for m in a.measures if m[1] in units} == {m for m in b.measures if m[1] in units}:
        return False
    return amount_changed(new)


def changes_a_measure(text: str) -> bool:
    """The statement gives an amount in a unit of measure and says it changed:
    the fact it replaces may stand on another page."""
    return bool(frame_of(text).measures) and amount_changed(text)


@lru_cache(maxsize=4096)
def amount_changed(text: str) -> bool:
    """The statement raises or lowers an amount, or says one replaced another."""
    if has_arabic(text):
        if _REPLACING_AR.search(text):
            return True
        return any(_amount_verb_ar(w.strip("،,.!؟")) for w in text.split())
    if _REPLACING_EN.search(text):
        return True
    raised = bool(_RAISED.intersection(text.lower().split()))  # "put the rent up to …"
    return any(
        c.lemma in AMOUNT_VERBS and (raised or c.lemma not in _ONLY_RAISED) for c in clauses(text)
    )


def _amount_verb_ar(word: str) -> bool:
    """An Arabic verb of raising or lowering, by its lemma or its bare stem with
    the person's ending taken off ("رفع", "رفعت", "زودنا")."""
    if not has_arabic(word) or len(word) < 3:
        return False
    bare = fold(word)
    tries = {
        verb_lemma(word),
        bare,
        *(bare[: -len(e)] for e in ("ت", "نا", "وا") if bare.endswith(e)),
    }
    return bool(tries & AMOUNT_VERBS_AR)


@lru_cache(maxsize=4096)
def frame_of(text: str) -> Frame:
    """A fact's content words (plural folded), the numbers it states and what they
    count (the content word right after a number, or right before one: "page
    200"), and its amounts of a unit of measure ("50mg", "٥ ملغ", "£1250")."""
    words: set[str] = set()
    numbers: set[str] = set()
    units: set[str] = set()
    measures: set[tuple[str, str]] = set()
    previous: str | None = None
    pending: str | None = None  # a number waiting for the unit after it
    after_number = False
    for raw in without_dates(text).lower().replace(",", "").split():
        word = raw.strip(".!?;:()\"'*،؟")
        if word[:1] in _CLITICS and word[1:2].isdigit():
            word = word[1:]  # "ل١٠ ملغ": to 10 mg
        money = word[:1] in _CURRENCY and _digits(word[1:]) is not None
        if money:
            measures.add((_digits(word[1:]) or "", word[:1]))
            word = word[1:]
        if not money and len(word) == 4 and word.isdigit() and word[:2] in ("19", "20"):
            previous, after_number, pending = None, False, None
            continue  # a year says when, not how many
        glued = None if money else _glued(word)
        if glued is not None:
            number, unit = glued
            if unit not in _CLOCK:
                numbers.add(number)
                measures.add((number, unit))
                units.add(unit)
            previous, after_number, pending = (None if unit in _CLOCK else unit), False, None
            continue
        digits = word.rstrip("stndrh") if word[:1].isdigit() else ""
        if _digits(digits) is not None or word in _NUMBER_WORDS:
            number = _digits(digits) or _NUMBER_WORDS[word]
            numbers.add(number)
            if previous is not None:
                units.add(previous)
            after_number, pending = True, (None if money or digits != word else number)
            continue
        if word and word not in _FRAME_STOP and word.isalpha():
            folded = word[:-1] if len(word) > 3 and word.endswith("s") else word
            words.add(folded)
            if after_number:
                units.add(folded)
                if pending is not None and len(word) <= _UNIT_LETTERS and word not in _CLOCK:
                    measures.add((pending, word))
            previous, after_number, pending = folded, False, None
        elif word not in ("of", "a", "an", "new"):
            previous, after_number, pending = None, False, None
    return Frame(frozenset(words), frozenset(numbers), frozenset(units), frozenset(measures))


_ORDINAL = frozenset("st nd rd th".split())  # "1st", "3rd": which one, not how much
_UNIT_LETTERS = 4  # a unit written after its number is short: "mg", "ml", "kg", "ملغ"


def _digits(word: str) -> str | None:
    """`word` as a number in ASCII digits ("١٠" is "10"), or None."""
    bare = word.replace(".", "", 1)
    if not bare or not bare.isdigit():
        return None
    whole, _, part = word.partition(".")
    return str(int(whole or "0")) + (f".{part}" if part else "")


def _glued(word: str) -> tuple[str, str] | None:
    """A number with its unit written onto it: "100mg", "2.5ml", "5k"."""
    at = 0
    while at < len(word) and (word[at].isdigit() or word[at] == "."):
        at += 1
    number, unit = _digits(word[:at]) if at else None, word[at:]
    if number is None or not unit.isalpha() or len(unit) > _UNIT_LETTERS or unit in _ORDINAL:
        return None
    return number, unit
