"""Which current fact a statement's ended thing names, read by the words'
lemmas, not by the words as written.

A person names what ended the way they think of it, not the way they first
said it: "quit the bowling league" ends "Wednesday nights = bowling league at
Bowlero"; "resigned as a trustee" ends "trustee of the food bank since
2019"; "cancelled the meal kit boxes" ends "we get a HelloFresh box every
week"; "wrapped up tutoring" ends "I tutor maths on Tuesdays"; "Kai's
placement ended" ends "we foster a teenager, Kai". Every one shares the
ended thing's head noun (or its verb: tutoring, tutor), or the name of whose
thing it was, with the fact, and no more of the sentence.

`anchor(fact, thing)` scores how well a fact names a thing: 0 when it does not
(the head lemma, or a name in the thing, is missing from the fact; or the
thing has words that tell it from others of its kind, "the community choir",
and the fact holds none of them), else one plus the number of those words
the fact shares, so the caller can choose "bowling league at Bowlero" over
"I help coach Little League" for "the bowling league" and refuse to choose
when two facts name it equally well. A head that only names a kind of thing
("job", "car": `families.GENERIC`) anchors nothing here; the families decide
those. English is read by the parse; Arabic is scored the same way over its
words' stems (`arabic.stems`: clitics off, letters folded).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from substrate.meaning.arabic import has_arabic, stems
from substrate.meaning.families import GENERIC
from substrate.meaning.parser import common_noun, parsed

# Lemmas that name no thing of their own: a light verb, a pronoun's stand-in.
_EMPTY = frozenset(
    """be have do get go make take give put keep let say come see use thing stuff lot
    day week month year time morning evening night weekend today one bit way""".split()
)
_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ"})
# Words that say how one sees a thing, not which thing it is.
_PLAIN = frozenset(
    """old new last current usual regular daily weekly monthly whole little big local only
    own first second same other""".split()
)


@dataclass(frozen=True)
class Thing:
    """An ended thing's lemmas: `head`, the other content lemmas `words`, and
    the proper names it holds (lower case)."""

    head: str
    words: frozenset[str]
    names: frozenset[str]


@lru_cache(maxsize=4096)
def thing_of(text: str) -> Thing | None:
    """The thing a short noun phrase names ("the allotment committee", "Kai's
    placement"); None for one that names nothing (no English words, a
    pronoun, a kind alone)."""
    doc = parsed(text)
    if doc is None:
        return None
    content = [t for t in doc if t.pos_ in _CONTENT and t.is_alpha]
    if not content:
        return None
    root = next((t for t in doc if t.dep_ == "ROOT" and t.pos_ in _CONTENT), content[-1])
    # a name is written with its capital (a phrase parsed alone tags loosely)
    names = frozenset(
        t.lower_
        for t in doc
        if t.text[:1].isupper() and (t.pos_ == "PROPN" or t.dep_ == "poss")  # "Kai's placement"
    )
    head = _lemma(root)
    # what tells this one from others of its kind ("Spanish", "community"), not "old"
    words = frozenset(
        w for t in content if t is not root and t.lower_ not in _PLAIN and (w := _lemma(t))
    )
    if (not head or head in GENERIC) and not names:
        return None
    return Thing(head, words - {head}, names)


@lru_cache(maxsize=8192)
def lemmas_of(text: str) -> frozenset[str]:
    """A fact's content lemmas and proper names (lower case), verbs included:
    "I tutor maths" holds `tutor`, which "tutoring" is stemmed to."""
    doc = parsed(text)  # the parse the fact's reading already made
    if doc is None:
        return frozenset()
    out: set[str] = set()
    for token in doc:
        if token.pos_ in _CONTENT and token.is_alpha and (lemma := _lemma(token)):
            out |= {lemma, token.lower_}
            if token.tag_ == "NNPS" and lemma.endswith("s"):
                out.add(lemma[:-1])  # a name's plural is not lemmatised: "Pawsitive Vets"
    return frozenset(out)


# What a name that is no thing stands for: a person, a time, an amount.
_NOT_THINGS = frozenset("PERSON DATE TIME CARDINAL ORDINAL MONEY QUANTITY PERCENT".split())


@lru_cache(maxsize=4096)
def things_of(text: str) -> tuple[str, ...]:
    """The things a statement names, each as its head noun with the nouns
    compounded on it ("book club", "oat milk", "pottery"), in order: what a
    change may be anchored to when no slot reads it. A person, a time or an
    amount is no such thing, nor is a kind alone ("job": the families decide)
    or a word that names nothing of its own ("day", "lot")."""
    doc = parsed(text)
    if doc is None:
        return ()
    out: list[str] = []
    for token in doc:
        if token.pos_ not in ("NOUN", "PROPN") and not _activity(token):
            continue
        if token.dep_ == "compound":
            continue
        if not token.is_alpha or (token.ent_type_ in _NOT_THINGS and not _opening(token)):
            continue
        lemma = str(token.lemma_.lower())
        if lemma in _EMPTY or lemma in GENERIC or token.lower_ in GENERIC:
            continue
        compounds = [c.text for c in token.children if c.dep_ == "compound" and c.is_alpha]
        out.append(" ".join([*compounds, token.text]))
    return tuple(dict.fromkeys(out))


def _activity(token: Any) -> bool:
    """A gerund that names an activity, not a verb of its own clause ("Rowing's
    on hold"; not "I'm doing", which has its subject and auxiliary)."""
    if token.tag_ != "VBG" or token.dep_ == "ROOT":
        return False
    return not any(c.dep_ in ("nsubj", "aux", "auxpass", "dobj") for c in token.children)


def _opening(token: Any) -> bool:
    """A common noun capitalised because it opens the sentence ("Choir's on
    hold"), which the recogniser may take for a person."""
    return token.is_sent_start and common_noun(token.text)


def told_as_new(text: str) -> bool:
    """A thing's new value told as such: the subject of "be" called new ("our
    book club's new home is The Koffee Pot", "my new number is …")."""
    doc = parsed(text)
    if doc is None:
        return False
    return any(
        t.lower_ == "new" and t.dep_ == "amod" and t.head.dep_ == "nsubj"
        and t.head.head.lemma_ == "be"
        for t in doc
    )  # fmt: skip


def anchor(fact: str, thing_text: str) -> int:
    """How well `fact` names the thing `thing_text` (see the module doc)."""
    if has_arabic(thing_text):
        return _arabic_anchor(fact, thing_text)
    thing = thing_of(thing_text)
    if thing is None:
        return 0
    held = lemmas_of(fact)
    if thing.names and not (thing.names & held):
        return 0
    if not thing.names and (not thing.head or thing.head not in held):
        return 0
    told = len(thing.words & held)
    if thing.words and not told and not thing.names:
        return 0  # "the community choir" is not said to be "the choir at St Mary's"
    return 1 + told + (1 if thing.names and thing.head in held else 0)


def _arabic_anchor(fact: str, thing_text: str) -> int:
    """The same score over Arabic stems (`arabic.stems`): the thing's first
    word is its head ("دكتور الأسنان"), the rest tell it apart."""
    said = stems(thing_text)
    if not said:
        return 0
    held = frozenset().union(*stems(fact))
    head, words = said[0], said[1:]
    if words and not head & held and all(w & held for w in words):
        # an idafa whose head measures or parts the thing it is annexed to:
        # "مستوى الفرنسية" (French's level), "جلسات العلاج" (the therapy's sessions)
        return 1 if any(len(f) >= 3 for w in words for f in w) else 0
    if not any(len(f) >= 3 for f in head) or not head & held:
        return 0
    told = sum(1 for w in words if w & held)
    if words and not told:
        return 0
    return 1 + told


def _lemma(token: Any) -> str:
    """The token's lemma, stemmed (`_stem`); '' for one that names nothing."""
    lemma = str(token.lemma_.lower())
    if lemma in _EMPTY:
        return ""
    word = str(token.lower_)  # a gerund stems from its word: "babysitting", not "babysitte"
    return _stem(word if word.endswith("ing") else lemma)


def _stem(lemma: str) -> str:
    """A gerund's verb ("tutoring" → "tutor", "swimming" → "swim"), so a thing
    named by its activity meets the fact that does it."""
    if len(lemma) > 6 and lemma.endswith("ing"):
        stem = lemma[:-3]
        if len(stem) > 3 and stem[-1] == stem[-2]:
            stem = stem[:-1]
        return stem
    return lemma
