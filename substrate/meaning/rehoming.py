"""A pet that now lives elsewhere, read from the parse: an end said without a
verb of ending.

People rarely say "we rehomed Kiwi"; they say where the animal is now: "Kiwi
went to live with my niece", "Noodle's at a reptile sanctuary", "our cat went
to a new home". Each places a being of the person's (named, or a pet's noun
they own) with someone of theirs or at a place that keeps animals for good,
and so ends it as theirs:

- going or moving, then living or staying **with** one of the person's own
  people (a relative they name as theirs, a family, a couple) or **at** such
  a place ("went to live with my niece");
- being **at** a place that keeps animals for good, or **with** one of the
  person's people, now ("Noodle's at a reptile sanctuary");
- going **to** a new home or such a place ("went to a new home").

A stay with an end in sight is no end: kennels and catteries board animals
for a while, and "for the weekend", "until", "while we're away" bound a stay.
A negated, modal or future clause says nothing happened.
"""

from __future__ import annotations

from collections.abc import Sequence

from substrate.meaning.parser import FRAGMENT, Clause, Phrase
from substrate.safety import linear

# Places that keep an animal for good (a boarding kennel or cattery does not).
KEEPERS = frozenset("sanctuary rescue shelter farm zoo aviary".split())
NEW_HOMES = frozenset("home family".split())  # "a new home", "a new family"
# Whom a pet goes to live with: one of the person's own, or a household.
HOUSEHOLDS = frozenset("family couple farmer household".split())
PETS = frozenset(
    """dog cat puppy kitten rabbit hamster parrot horse pony budgie tortoise lizard
    snake ferret guinea gerbil bird fish pet""".split()
)
_GOING = frozenset("go move".split())
_LIVING = frozenset("live stay".split())
_BOUNDED = linear(
    r"(?i)\b(?:for the (?:weekend|week|day|night|holidays?)|this weekend|until|till|"
    r"while (?:we|i)|for a (?:few )?(?:days|weeks|week|night))\b"
)


def rehomed(said: Sequence[Clause], text: str) -> tuple[list[Phrase], set[int]]:
    """The beings `said` (the clauses of `text`) places elsewhere for good, and
    the indices of the clauses that say so."""
    if _BOUNDED.search(text):
        return [], set()
    beings: list[Phrase] = []
    told: set[int] = set()
    for at, clause in enumerate(said):
        after = said[at + 1] if at + 1 < len(said) else None
        if not _happened(clause):
            continue
        being = _being(clause)
        if being is None:
            continue
        going = clause.lemma in _GOING
        if going and after is not None and _lives_with_theirs(after):
            beings.append(being)
            told |= {at, at + 1}
        elif (going and _to_a_new_home(clause)) or _kept_elsewhere(clause):
            beings.append(being)
            told.add(at)
    return beings, told


def _happened(clause: Clause) -> bool:
    return not (clause.negated or clause.modal or clause.tense == "future")


def _being(clause: Clause) -> Phrase | None:
    """The animal the clause is about: its subject (or, in a verbless note, its
    first noun), named or a pet's noun the person owns; never the person."""
    candidates = clause.subjects if clause.subjects else clause.objects[:1]
    for phrase in candidates:
        if phrase.first_person:
            return None
        named = phrase.proper or bool(phrase.name) or phrase.text[:1].isupper()
        if named or (phrase.head in PETS and phrase.mine):  # a capital the tagger may miss
            return phrase
    return None


def _theirs(phrase: Phrase) -> bool:
    return not phrase.first_person and (phrase.mine or phrase.head in HOUSEHOLDS)


def _keeper(phrase: Phrase) -> bool:
    return phrase.head in KEEPERS or any(w in KEEPERS for w in phrase.words)


def _lives_with_theirs(clause: Clause) -> bool:
    """ "… to live with my niece", "… to stay at a farm in Devon"."""
    if clause.lemma not in _LIVING or not _happened(clause):
        return False
    return any(_theirs(p) for p in clause.attached("with")) or any(
        _keeper(p) for p in clause.attached("at", "on")
    )


def _to_a_new_home(clause: Clause) -> bool:
    """ "went to a new home", "moved to a sanctuary"."""
    gone = clause.attached("to")
    return any(_keeper(p) or (p.head in NEW_HOMES and "new" in p.words) for p in gone)


def _kept_elsewhere(clause: Clause) -> bool:
    """ "Noodle's at a reptile sanctuary", "Biscuit is with my parents now"."""
    being = clause.copula or clause.predicate == FRAGMENT
    if not being or clause.tense not in ("present", ""):
        return False
    return any(_keeper(p) for p in clause.attached("at", "in")) or any(
        _theirs(p) for p in clause.attached("with")
    )
