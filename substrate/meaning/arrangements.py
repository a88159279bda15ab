"""A lasting arrangement, read from the parse: where the person keeps, rents,
parks or stores a thing of theirs, and with whom ("I keep my beehives at a
farm", "we rent a lock-up behind the station", "my spare key is with my
neighbour").

Capture's phrase cues name what a life is made of (a job, a home, a pet); an
arrangement is made of any thing and any place, so it is recognised by its
shape instead: the person as subject, a present (habitual) verb that is not
negated, hedged or a wish, a thing as its object, and a place or a holder attached by
a preposition of where. A past event of the same shape ("I left my keys at
work") is not an arrangement, nor is a time ("at the weekend") a place.
"""

from __future__ import annotations

from substrate.meaning.parser import Clause, Phrase, clauses

# Prepositions that say where a thing is, or whose hands it is in.
WHERE = frozenset(
    "at in on with behind under beside near inside outside by above below across".split()
)
# Heads that are times, not places ("at the weekend", "on Mondays").
_TIMES = frozenset(
    """weekend weekday morning afternoon evening night day week month year time moment
    monday tuesday wednesday thursday friday saturday sunday summer winter spring autumn
    fall minute hour while""".split()
)
# Wanting or seeking a thing somewhere is not having it there ("I need a locker at
# the gym"): the verb's mood, as a modal's is.
_WISHES = frozenset("want need wish hope seek search look plan consider try expect".split())
_NOT_THINGS = frozenset(
    "it this that they them these those he she you one thing something anything".split()
)
_TIME_ENTITIES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY"})


def arranged(sentence: str) -> bool:
    """Whether the sentence states a lasting arrangement of the person's (see
    the module doc)."""
    return any(_arrangement(c) for c in clauses(sentence))


def _arrangement(clause: Clause) -> bool:
    if clause.negated or clause.modal or clause.tense != "present":
        return False
    if clause.lemma in _WISHES:
        return False
    if clause.copula:  # "my spare key is with Dee": the subject is the person's thing
        things = tuple(s for s in clause.subjects if s.mine and _thing(s))
    elif clause.speaker:
        things = tuple(o for o in clause.objects if _thing(o))
    else:
        return False
    where = (*clause.attachments, *clause.object_attachments)
    return bool(things) and any(prep in WHERE and _place(p) for prep, p in where)


def _thing(phrase: Phrase) -> bool:
    return phrase.head not in _NOT_THINGS and not phrase.first_person and phrase.head.isalpha()


def _place(phrase: Phrase) -> bool:
    if phrase.entity in _TIME_ENTITIES or phrase.head in _TIMES:
        return False
    return phrase.head not in _NOT_THINGS
