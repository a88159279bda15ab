"""How the person gets to work, read from a clause's structure: the commute.

A commute is a way of travelling with work as its goal, said of the person in
the present: a verb of travelling ("cycle", "drive", "walk") or a means of
transport taken ("take the 8:10 train", "it's the number 38 bus") with
work, the office or campus as where it goes ("to work", "into the office");
a verb that is itself a commute ("carpool", "car-share", "commute"); the
person's commute as the subject of a copula ("my commute is twelve steps to
the spare room"); or a means of transport taken along a route ("from
Stamford into Grand Central") on every working day. The value is the way
itself (the verb, or the transport as written), so "I drive to the office"
and then "it's the bus into work now" are two values of one slot,
`habit:commute`, which holds one at a time.

The goal words and the transport nouns are kept small and general (what a
journey to work is called, what public transport is called); a vehicle is
also what WordNet's hypernyms call one (`nouns`).
"""

from __future__ import annotations

from substrate.meaning.nouns import noun_family
from substrate.meaning.parser import Clause, Phrase
from substrate.safety import linear

SLOT = "habit:commute"
# Where a journey to work goes.
GOALS = frozenset("work office job uni university campus workplace".split())
# Verbs whose subject travels by a way of their own.
TRAVELLING = frozenset("cycle bike walk drive ride run jog scoot commute".split())
# Verbs that say a commute by themselves ("we carpool", "we're car-sharing").
COMMUTING = ("commute", "carpool", "car-shar", "carshar", "lift-shar")
COMMUTE_NOUNS = frozenset("carpool carpooling car-sharing lift-sharing commute".split())
# Verbs of taking a means of transport ("take the tube", "catch the 38").
TAKING = frozenset("take get catch ride use".split())
TRANSIT = frozenset(
    """bus train tube metro tram ferry subway underground overground coach shuttle
    boat streetcar trolley""".split()
)
# Said of every working day ("every day", "each morning", "daily", "weekdays").
_TO_WORK = linear(r"(?i)\b(?:in)?to work\b")
_DAILY = linear(
    r"(?i)\b(?:every|each)\s+(?:day|morning|weekday|working day)\b|\bdaily\b|\bweekdays\b"
)


def commute_of(clause: Clause, text: str) -> str | None:
    """The way the person gets to work that `clause` of `text` states, or None."""
    if clause.negated or clause.modal or clause.tense not in ("present", ""):
        return None
    if not (clause.speaker or any(s.first_person for s in clause.subjects)):
        return _my_commute(clause, text)
    if clause.lemma.startswith(COMMUTING):  # the tagger may lemmatise "carpooling" as "carpoole"
        return clause.predicate
    if clause.copula:
        told = [o for o in clause.objects if _said_commute(o)]
        if told:
            return told[0].text  # "Lorna and I are car-sharing now"
    if clause.lemma in TRAVELLING and not clause.copula and _goes_to_work(clause):
        return clause.lemma
    transport = _transport(clause)
    if transport is None:
        return None
    if _goes_to_work(clause, text) or (_on_a_route(clause) and _DAILY.search(text)):
        return transport.text
    return None


def _my_commute(clause: Clause, text: str) -> str | None:
    """ "My commute is twelve steps to the spare room"; "it's the number 38 bus
    into work now": the person's commute named by a copula."""
    if not clause.copula or not clause.objects:
        return None
    if any(s.mine and s.head in COMMUTE_NOUNS for s in clause.subjects):
        return clause.objects[0].text
    pronoun = all(s.head in ("it", "that") for s in clause.subjects)
    if pronoun and _goes_to_work(clause, text):
        transport = _transport(clause)
        return transport.text if transport is not None else None
    return None


def _said_commute(phrase: Phrase) -> bool:
    fold = phrase.text.lower().replace(" ", "-")
    return fold in COMMUTE_NOUNS or phrase.head in COMMUTE_NOUNS


def _goes_to_work(clause: Clause, text: str = "") -> bool:
    """Work is where the clause goes. After a means of transport, "to work" may
    be parsed as a purpose ("take the bus to work": an infinitive), so there
    (`text` given) the words count too."""
    if text and _TO_WORK.search(text):
        return True
    return any(p.head in GOALS for p in _hung(clause, "to", "into"))


def _transport(clause: Clause) -> Phrase | None:
    """A means of transport the clause takes or is ("the 7:40 train", "Metro-North")."""
    if not (clause.lemma in TAKING or clause.copula):
        return None
    for phrase in clause.objects:
        if phrase.head in TRANSIT or noun_family(phrase.words, phrase.head) == "vehicle":
            return phrase
        if not clause.copula and phrase.proper and _on_a_route(clause):
            return phrase  # a named line taken along a route: "take Metro-North from …"
    return None


def _on_a_route(clause: Clause) -> bool:
    """The clause travels from a place into or to another."""
    return bool(_hung(clause, "from")) and bool(_hung(clause, "to", "into"))


def _hung(clause: Clause, *preps: str) -> list[Phrase]:
    """What the clause attaches with `preps`, on itself or on its objects (the
    parse hangs "into Grand Central" on either)."""
    return [*clause.attached(*preps), *(p for q, p in clause.object_attachments if q in preps)]
