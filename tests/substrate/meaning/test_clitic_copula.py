"""A clitic "'s" before a participle is the verb, not a possessive: "The
boat's sold", "Tom's moved to Leeds" keep their subject; a possessive
followed by what it owns ("my sister's car") stays one. Generated: subjects ×
participles × what follows (nothing, a stop, a preposition's phrase, an
adverb)."""

from __future__ import annotations

import itertools

from substrate.meaning.parser import clauses

THINGS = [("The boat", "boat"), ("Our flat", "flat"), ("The allotment", "allotment"),
          ("Membership", "Membership"), ("The old van", "van")]  # fmt: skip
PEOPLE = [("Tom", "Tom"), ("My sister", "sister"), ("Mrs Okafor", "Okafor")]
DONE_TO_THINGS = [
    ("sold", "sell"),
    ("cancelled", "cancel"),
    ("finished", "finish"),
    ("scrapped", "scrap"),
]
DONE_BY_PEOPLE = [("moved", "move"), ("retired", "retire"), ("left", "leave")]
TAILS = ["", ".", " at last.", ", finally.", " for good."]


def test_a_clitic_before_a_participle_keeps_the_clause_subject() -> None:
    cases = itertools.chain(
        itertools.product(THINGS, DONE_TO_THINGS, TAILS),
        itertools.product(PEOPLE, DONE_BY_PEOPLE, TAILS),
    )
    for (subject, head), (participle, lemma), tail in cases:
        text = f"{subject}'s {participle}{tail}"
        found = [c for c in clauses(text) if c.predicate == lemma]
        assert found, (text, clauses(text))
        assert head in [p.text.split()[-1] for p in found[0].subjects], (text, found[0])


def test_a_possessive_before_what_it_owns_stays_one() -> None:
    owners, things = ["My sister", "Tom", "The neighbour"], ["car", "flat", "shed", "bed", "speed"]
    for owner, thing in itertools.product(owners, things):
        text = f"{owner}'s {thing} is red."
        [clause] = clauses(text)
        assert clause.predicate == "be" and clause.subjects[0].head == thing, text
