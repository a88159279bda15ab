"""Events read from the parse: what a statement starts, ends or exchanges, by
the class of its predicate, and which family the thing belongs to, by what
the thing is.

Classes of predicates, not sentences (`START`, `END`, `EXCHANGE`: lemmas,
with their particle where it carries the meaning, so every inflection and
word order of "sold", "we've sold", "sold off" is one entry):

- an **end** names what ended as its object ("sold the Fiesta", "cancelled my
  PureGym membership"), as what it ended with or left ("broke up with Tom",
  "moved out of the flat", "resigned from Kestrel"), or as its own subject
  when the person is not ("Pickle died", "Tomasz and I broke up": the other
  subject);
- an **exchange** ends its object and starts what it was exchanged for
  ("traded the Corsa for a Niro", "switched from Vodafone to Three");
- a **start** names a new value as its object or its destination ("bought a
  Skoda", "joined Brackwater", "moved into a flat in Leith");
- a **state**, a copula on the person's thing, names a current value ("my
  car's a Honda Civic"); verbs of having and living are the phrase rules'.

A value's family comes from its head noun (`FAMILY_OF_HEAD`: flat, house →
home; car, bike and car makes → vehicle; dentist, GP → provider; membership,
subscription → membership; …), else from its entity type beside the
predicate (an organisation one works at, joins or leaves → work; a place one
lives in or moves to → home). A negated clause, a modal one or one in the
future says nothing happened. The person's own clauses only, except an end
whose subject is the thing itself. Arabic has no parse here: its ends and
exchanges are read by the verb's lemma from a morphological analyser
(`arabic`), what they name by Arabic's verb-first order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from substrate.meaning.arabic import arabic_ends, ends_only, has_arabic
from substrate.meaning.arabic_places import dwelling
from substrate.meaning.commute import SLOT as COMMUTE, commute_of
from substrate.meaning.idioms import ending_idioms
from substrate.meaning.nouns import is_role, noun_family
from substrate.meaning.parser import FRAGMENT, THROUGH, Clause, Phrase, clauses
from substrate.meaning.rehoming import rehomed
from substrate.meaning.slot_rules import (
    CAR_MAKES,
    PROVIDER_KINDS,
    PROVIDER_TOPIC,
    VEHICLE_KINDS,
    compound_kind,
    provider_kind,
)
from substrate.meaning.statements import CESSATION, kind_of
from substrate.safety import linear

START = frozenset(
    """join start begin buy purchase adopt acquire rent lease register enrol enroll marry
    subscribe hire employ accept land get_into take_up pick_up sign_up sign move_in
    move_into take_on settle_in move relocate get""".split()
)
END = frozenset(
    """leave quit sell cancel die break_up split_up split move_out give_up stop rehome
    step_down drop resign retire divorce scrap end close lose pass_away put_down write_off
    unsubscribe ditch dump terminate pack_in hang_up drop_out separate walk_out get_rid
    give_away call_off move_on lapse expire run_out shut_down sell_off let_go pass
    graduate dissolve discontinue wrap_up come_off withdraw no_more""".split()
)
# Ends whose subject is what ended ("Pickle died", "the gym closed", "my
# membership lapsed", "Tomasz broke up with me", "Jordan moved out"; "Dad
# retired": what the facts naming him held of his work); "Rosa sold up" and
# "Tom quit" say what their subject did, not that it ended.
SUBJECT_ENDS = frozenset(
    """die pass_away pass close end expire lapse run_out shut_down dissolve finish
    break_up split_up split separate divorce fall_through move_out retire resign""".split()
)
# Ends that, said of oneself with nothing named, end one's work ("I retired",
# "she's resigned").
WORK_ENDS = frozenset("retire resign".split())
# Ends that, with nothing named, end one's studies ("Sam graduated").
STUDY_ENDS = frozenset({"graduate"})
# Verbs of having, using and living in the present: "I have a Guardian
# subscription", "I drive a Ford Focus", "we rent a two-bed in Astoria", "I teach
# at St Aidan's": the value they name is the person's now.
HOLDING = frozenset("have own use drive ride live rent teach work attend go".split())
# Verbs of getting a thing: what it came "from" is who sold, gave or hired it
# ("bought a Kia from Arnold Clark"), not a value that ended.
ACQUIRING = frozenset(
    "buy purchase adopt acquire get rent lease hire employ accept pick_up take_on land".split()
)
# Finishing a thing ends it ("finished Whole30", "completed the course"), one
# counted is a count, not an end ("finished my 5th project").
FINISHING = frozenset("finish complete".split())
_COUNTS = frozenset(
    """one two three four five six seven eight nine ten first second third fourth fifth
    sixth seventh eighth ninth tenth last next another""".split()
)
# A thing said to be through of itself ("the band's finished", "Lyon fell
# through", "my membership is over" (`parser.THROUGH`), "pottery's on hold"):
# its subject ended.
COMPLETED = frozenset("finish fall_through".split())
PAUSES = frozenset("hold ice pause".split())
# A state of being through with something: "it's over with Ben", "done with the gym".
OVER = frozenset("over through done finish".split())
EXCHANGE = frozenset(
    "exchange part-exchange trade trade_in swap swap_out replace switch change".split()
)
# Nouns that make a light verb an end ("say goodbye to", "hand in my notice at").
END_NOUNS = frozenset("goodbye farewell notice quits resignation".split())
# What an end names through an attachment: "broke up with", "moved out of".
END_PREPS = ("with", "from", "of", "out", "out of", "at", "as")
START_PREPS = ("to", "into", "in", "at", "with", "for", "on")
EXCHANGE_FOR = ("for", "with", "to", "into")
# A value's family by its head noun.
FAMILY_OF_HEAD: dict[str, str] = {
    **dict.fromkeys(
        """flat apartment house home place cottage bungalow studio maisonette condo
        townhouse semi terrace houseboat bedsit digs houseshare loft""".split(),
        "home",
    ),
    **dict.fromkeys([*VEHICLE_KINDS, *CAR_MAKES, "motor", "moped", "campervan"], "vehicle"),
    **dict.fromkeys(
        """job role position post employer company firm career gig internship
        apprenticeship placement contract shift shifts business offer""".split(),
        "work",
    ),
    **dict.fromkeys([*PROVIDER_KINDS, "vets", "clinic", "practice", "dental"], "provider"),
    **dict.fromkeys("membership subscription pass ticket plan".split(), "membership"),
    **dict.fromkeys(
        """dog cat puppy kitten rabbit hamster parrot horse pony budgie tortoise lizard
        snake ferret guinea gerbil""".split(),
        "pet",
    ),
    **dict.fromkeys(
        "boyfriend girlfriend partner husband wife fiance fiancee fiancé fiancée".split(),
        "partner",
    ),
    **dict.fromkeys("course class classes lessons degree module programme".split(), "course"),
}
# The slot each family's value fills, and the person's page it is filed on.
FAMILY_SLOT: dict[str, tuple[str, str, bool]] = {
    "home": ("home", "home", True),
    "work": ("employer", "work", True),
    "vehicle": ("vehicle:car", "vehicles", True),
    "provider": ("provider:gp", "health", True),
    "membership": ("membership", "hobbies", False),
    "pet": ("pet", "pets", False),
    "partner": ("partner", "family", True),
    "course": ("course", "education", False),
    "drink": ("pref:drink", "food", True),
    "medication": ("medication", "health", False),
}
# Families a brand names: a capitalised "Ventolin" or "Guinness" is still the
# thing WordNet knows; a capitalised "Octopus" or "Jersey" names a company or
# a place, not the animal or the island's cow, so other families skip names.
_BRANDED = frozenset({"drink", "medication"})
# A dwelling named by its bedrooms ("a two-bed", "a 3-bedroom"), one, not beds.
_BEDS = linear(r"(?i)\b(?:\d|one|two|three|four|five|six)[ -]bed(?:room)?\b(?:$|[^s])")
# Verbs that name the service done with a provider ("bank with", "insure with").
PROVIDING = {"bank": "bank", "insure": "insurance"}
# Nouns of a person's standing with an organisation, and the family it gives
# the organisation ("member of PureGym", "patient at Hollybrook Surgery").
STANDING: dict[str, str] = {
    **dict.fromkeys("member holder subscriber cardholder".split(), "membership"),
    **dict.fromkeys("patient customer client".split(), "provider"),
}
# Job words: a value named beside one ("as an analyst") is an employer.
ROLE_WORDS = frozenset(
    """engineer developer manager designer teacher nurse doctor analyst scientist lead
    director consultant architect writer intern accountant lawyer chef researcher officer
    programmer editor professor lecturer pharmacist therapist technician administrator
    founder cto ceo specialist coordinator assistant associate principal head deputy
    clerk driver cleaner receptionist carer paramedic solicitor surveyor""".split()
)
_WORK_VERBS = frozenset("work join start leave quit hire employ resign retire accept teach".split())
_TIMES = frozenset({"DATE", "TIME", "ORDINAL", "CARDINAL"})
_EMPLOYING = frozenset("work start teach".split())  # verbs whose "at X" is where one works
_HOME_VERBS = frozenset("live move move_in move_into rent buy settle_in relocate".split())
_PLACE = frozenset({"GPE", "LOC", "FAC"})
_MOVES = frozenset("move relocate".split())
_BEGINS = frozenset("start begin".split())
# Families whose value is a being: "Zorblax is my climbing partner" is about
# Zorblax, whose page the statement goes on, not a value of the person's.
_BEINGS = ("partner", "pet")
_SOURCES = ("from", "at", "with")
# Taking someone on: "the Amazon depot took me on", "Kestrel hired me".
TAKING_ON = frozenset("take_on hire employ recruit".split())
# What a parse may take for an object and is none ("I've packed anyway in the …").
_NOT_OBJECTS = frozenset("anyway then now though too also".split())
_NOT_ENDED = frozenset(
    """i we me us it this that he she they you something everything nothing one thing
    day week month year time morning night weekend""".split()
)


@dataclass(frozen=True)
class Value:
    """A value a statement names for the person: its family, the slot and page
    it fills, whether the slot holds one value, and the value as written."""

    family: str
    slot: str
    topic: str
    single: bool
    text: str


@dataclass(frozen=True)
class Events:
    """`ends`: what the statement says ended, as written; `start`: the new
    value it names (a start or what an exchange brings); `state`: a current
    value it names without saying anything changed; `shifted`: a clause's
    predicate ends or exchanges something, whatever it names ("the blue one's
    retired"), for a change anchored to a thing, not a value."""

    ends: tuple[str, ...] = ()
    start: Value | None = None
    state: Value | None = None
    shifted: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.ends) or self.start is not None


def key(clause: Clause) -> str:
    return clause.predicate.replace(" ", "_")


def classed(clause: Clause, table: frozenset[str]) -> bool:
    return key(clause) in table or clause.lemma in table


@lru_cache(maxsize=8192)
def read_events(text: str) -> Events:
    """The events of the person's own words `text` (see the module doc)."""
    ends: list[str] = []
    start: Value | None = None
    state: Value | None = None
    shifted = False
    every = clauses(text)
    idioms = ending_idioms(text)
    beings, _ = rehomed(every, text)  # "Kiwi went to live with my niece"
    ends += [_named(b) for b in beings if _thing(b)]
    for said in every:
        if _judged_out(said):  # "Salsa wasn't really me", "pottery isn't for me"
            ends += [_named(p) for p in said.subjects if _thing(p) and not is_role(p.head)]
            continue
        if said.negated or said.modal or said.tense == "future":
            continue
        way = commute_of(said, text)  # "I drive to the office", "it's the bus into work now"
        if way is not None:
            state = state or Value("commute", COMMUTE, "travel", True, way)
            continue
        clause = _particled(said)
        shifted = shifted or _shifts(clause)
        if classed(clause, EXCHANGE) and clause.speaker:
            gone, new = _exchanged(clause)
            ends += gone
            start = start or new
        elif _over_with(clause):
            ends += [_named(p) for p in clause.attached("with") if _thing(p)]
        elif _through(clause):
            ends += [_named(s) for s in clause.subjects if _thing(s)]
        elif clause.lemma in idioms:
            ends += _idiom_ended(
                clause, idioms[clause.lemma], every
            )  # "Marcus and I called it a day"
        elif classed(clause, END):
            ended = _ended(clause)
            # "Priya graduated": her studies, named by their kind
            ends += ended or (["studies"] if clause.lemma in STUDY_ENDS else [])
        elif _finished(clause):
            ends += [_named(p) for p in _done(clause)]
        elif classed(clause, TAKING_ON) and any(o.first_person for o in clause.objects):
            taken = [s for s in clause.subjects if _named_thing(s)]
            start = start or (_as_value("work", taken[0]) if taken else None)
        elif clause.speaker and _ending_noun(clause):
            # a light verb with an ending noun: "said goodbye to X", "handed in my notice at X"
            told = clause.attached("to", "at", "with")
            ends += [_named(p) for p in told if _thing(p) and p.head not in END_NOUNS]
            ends += [p.name for p in clause.nominals if p.head in END_NOUNS and p.name]
        elif clause.speaker and classed(clause, START) and _starts(clause):
            # "I rent a flat" states; "I rented a flat", "I start on Monday" starts
            start = start or _value(clause)
            if not classed(clause, ACQUIRING):  # "moved from Leeds", "out of Theo's": what it left
                ends += [p.text for p in clause.attached("from", "out of") if _thing(p)]
        elif clause.predicate == FRAGMENT:  # "content producer at Brightwave Media"
            state = state or _fragment_value(clause)
        elif _mine_as_subject(clause) or _mine_as_object(clause):
            state = state or _value(clause)  # "my car's a Honda", "Google is my employer"
        elif clause.speaker and clause.copula and clause.tense == "present":
            state = state or _value(clause)  # "we're in a terrace in Walthamstow now"
        elif _serves_me(clause):  # "Hollybrook Surgery has my records"
            state = state or _as_value("provider", clause.subjects[0])
        elif (banked := _banked_with(clause)) is not None:  # "I bank with Barclays"
            state = state or banked
        elif clause.speaker and clause.tense == "present" and clause.lemma in HOLDING:
            # the person's present: "I have a Guardian subscription", "we rent a
            # two-bed in Astoria", when it says which one ("a flat with a garden"
            # says of what kind); a rented thing is the person's only as a home
            held = _value(clause)
            rented = held is not None and clause.lemma == "rent" and held.family != "home"
            which = held is not None and any(w[:1].isupper() for w in held.text.split())
            state = state or (held if which and not rented else None)
    if has_arabic(text):
        ends += arabic_ends(text)
        home = dwelling(text)
        state = state or (Value("home", *FAMILY_SLOT["home"], home) if home else None)
    named = [e for e in dict.fromkeys(ends) if e and e.lower() not in _NOT_ENDED]
    return Events(tuple(named), start, state, shifted)


def _shifts(clause: Clause) -> bool:
    """The clause's predicate ends or exchanges something. A start does not:
    "joined a course" or "adopted a pup" adds beside what was."""
    return classed(clause, END) or classed(clause, EXCHANGE)


def _starts(clause: Clause) -> bool:
    """A start said as done, or as set for a day ahead ("I start at Orbital on
    Monday"); a plain present states a habit ("I rent a flat")."""
    return clause.tense != "present" or clause.scheduled


def _particled(clause: Clause) -> Clause:
    """A preposition the parser hung where a particle belongs ("packed in the
    violin", "handed in the keys"): when verb and preposition make a predicate
    of a class, the predicate takes it and what it governs is the object."""
    for prep, phrase in clause.attachments:
        joined = f"{key(clause)}_{prep}"
        if any(joined in table for table in (END, START, EXCHANGE)):
            rest = tuple((p, x) for p, x in clause.attachments if x is not phrase)
            kept = tuple(o for o in clause.objects if o.head not in _NOT_OBJECTS)
            return replace(
                clause,
                predicate=f"{clause.predicate} {prep}",
                objects=(*kept, phrase),
                attachments=rest,
            )
    return clause


def _over_with(clause: Clause) -> bool:
    """ "It's over with Ben", "I'm done with the gym", "we're finished with the
    agency": being through with what the clause is "with"."""
    through = (clause.copula and any(a in OVER for a in clause.adverbs)) or (
        clause.passive and clause.speaker and clause.lemma in (*OVER, "do")
    )
    return through and bool(clause.attached("with"))


def _through(clause: Clause) -> bool:
    """A thing through of itself, with nothing it acts on: "the band's finished",
    "Lyon fell through", "my membership is over", "pottery's on hold"."""
    if clause.negated or clause.objects:
        return False
    if key(clause) in COMPLETED or clause.lemma in COMPLETED:
        return True
    if not clause.copula:
        return False
    held = any(p.head in PAUSES for p in clause.attached("on"))
    particle = clause.predicate.rpartition(" ")[2]  # "be over": the parser's particle
    return held or particle in THROUGH or any(a in THROUGH for a in clause.adverbs)


def only_an_end(text: str) -> bool:
    """Every clause of `text` ends something ("We lost Mochi in March", "said
    goodbye to Barney", "Sunny died"), and it names what: words that tell an
    end and nothing beside it. Arabic, which has no parse here, by its verbs
    (`arabic.ends_only`)."""
    if has_arabic(text):
        return ends_only(text)
    said = clauses(text)
    if not said:
        return False
    kind, ended = kind_of(text)
    if not read_events(text).ends and not (kind == CESSATION and ended):
        return False
    if any(c.lemma in WORK_ENDS for c in said):
        return False  # "Dad retired on Friday": a person's new standing, not only an end
    idioms = ending_idioms(text)
    ends = {
        id(c): p
        for c in said
        if classed(p := _particled(c), END) or _finished(c) or c.lemma in idioms
    }
    _, placed = rehomed(said, text)  # "Noodle's at a reptile sanctuary": an end, said where
    ends |= {id(said[i]): said[i] for i in placed}
    acts = {o.head for p in ends.values() for o in p.objects}  # "stopped playing the violin"
    # a clause with nothing of its own frames another ("had to say goodbye")
    told = [c for c in said if (c.objects or c.nominals or c.attachments) and c.lemma not in acts]
    if kind == CESSATION and len(told) == 1:
        return True  # "I no longer play the cello": the statement's one clause
    return all(id(c) in ends or _ending_noun(c) for c in told)


def _banked_with(clause: Clause) -> Value | None:
    """A verb that names the service it is done with ("I bank with Barclays", "we
    insure with Admiral"): the person's provider of that kind, now."""
    kind = PROVIDING.get(clause.lemma)
    if kind is None or not clause.speaker or clause.tense != "present":
        return None
    named = [p for p in clause.attached("with", "at") if _named_thing(p)]
    if not named:
        return None
    single = FAMILY_SLOT["provider"][2]
    return Value(
        "provider", f"provider:{kind}", PROVIDER_TOPIC.get(kind, "health"), single, named[0].text
    )


def _idiom_ended(clause: Clause, own: frozenset[str], every: Sequence[Clause]) -> list[str]:
    """What an idiom of ending ends: who said it beside the person ("Marcus and I
    called it a day"), or, said by someone else, its subject ("Grandad kicked
    the bucket"); and what it ended with or at ("… on the band", which the
    parse may hang on a word of the idiom read as a clause of its own: "quits").
    The idiom's own words ("it", "day", "towel") name nothing."""
    word = [c for c in every if c is not clause and any(w.startswith(c.lemma) for w in own)]
    parts = [clause, *word]
    attached = [p for c in parts for p in c.attached(*END_PREPS, "on")]
    named = [p for p in attached if _thing(p) and p.head not in own]
    subjects = [s for s in clause.subjects if not s.first_person and _thing(s)]
    if not clause.speaker:
        subjects = [s for s in subjects if _told_of(s)]
    return [_named(p) for p in [*subjects, *named]]


def _serves_me(clause: Clause) -> bool:
    """A named provider holds or looks after the person's things now: "Hollybrook
    Surgery has my records", "Smile Dental looks after us", the provider's
    name the statement's subject and the person (or theirs) its object."""
    if clause.speaker or clause.negated or clause.tense != "present" or not clause.subjects:
        return False
    first = clause.subjects[0]
    provider = _named_thing(first) and family_of(first, clause) == "provider"
    served = [*clause.objects, *clause.attached("after")]  # "looks after us"
    return provider and any(o.mine or o.first_person for o in served)


def _done(clause: Clause) -> list[Phrase]:
    """What a finishing clause finished: a thing, not one of a count or a spell
    of doing ("finished Whole30", not "my 5th project" or "reading the book")."""
    return [p for p in clause.objects if _thing(p) and not _counted(p) and not _doing(p)]


def _finished(clause: Clause) -> bool:
    """The person finished a thing, which ends it ("finished Whole30")."""
    return clause.speaker and clause.lemma in FINISHING and bool(_done(clause))


def _ending_noun(clause: Clause) -> bool:
    """An ending noun anywhere among the clause's nominals (the parser may hang
    "goodbye" as an interjection or "my notice" under a preposition)."""
    return any(p.head in END_NOUNS for p in clause.nominals)


def _exchanged(clause: Clause) -> tuple[list[str], Value | None]:
    """ "traded the Corsa for a Niro", "switched from Vodafone to Three"."""
    gone = [_named(p) for p in [*clause.objects, *clause.attached("from")] if _thing(p)]
    brought = clause.attached(*EXCHANGE_FOR)
    if not gone:  # "traded in the Corsa": the particle read as a preposition
        given = [p for prep, p in clause.attachments if prep not in EXCHANGE_FOR]
        gone = [_named(p) for p in given[:1] if _thing(p)]
    new = next((v for p in brought if (v := _family_value(p, clause)) is not None), None)
    if new is None and brought:
        family = next((f for p in clause.objects if (f := family_of(p, clause))), None)
        if family is not None:
            new = _as_value(family, brought[0])
    return gone, new


def _ended(clause: Clause) -> list[str]:
    """What an end names: its object, what it left or broke with, or its
    subject when that is not the person ("Pickle died")."""
    if clause.speaker:
        named = [p for p in clause.objects if _thing(p)]
        named += [p for p in clause.attached(*END_PREPS) if _thing(p)]
        named += [s for s in clause.subjects if not s.first_person and _thing(s)]
        if not named and classed(clause, WORK_ENDS):
            return ["job"]  # "I retired on Friday": the work, named by its kind
        return [_named(p) for p in named]
    if clause.objects or not (clause.passive or classed(clause, SUBJECT_ENDS)):
        # someone else ended something, or did ("Rosa sold up"): not the person's;
        # a passive's subject is what was ended ("Spotify's cancelled")
        return []
    return [_named(s) for s in clause.subjects if _told_of(s) and _thing(s)]


def _told_of(subject: Phrase) -> bool:
    """A subject an end is told of: a name (a capital the tagger may not call
    proper) or the person's own thing."""
    return subject.proper or subject.mine or subject.text[:1].isupper()


def _named(phrase: Phrase) -> str:
    """What names the ended thing: its proper name when it has one ("PureGym"
    of "my PureGym membership", which the fact it ends may name alone)."""
    return phrase.name or phrase.text


def _doing(phrase: Phrase) -> bool:
    """ "finished reading about DNA": a spell of an activity, not its end."""
    first = phrase.text.lower().split()[0] if phrase.text.split() else ""
    return first.endswith("ing") and phrase.head != first  # "painting the fence": paint


def _counted(phrase: Phrase) -> bool:
    """ "my 5th project", "two chapters", "my first quilt": one of a count, said
    by an ordinal or by a number before the head; a number after it names the
    thing ("Level 2", "Year 4")."""
    words = list(phrase.words)
    at = len(words) - 1 - words[::-1].index(phrase.head) if phrase.head in words else len(words)
    ordinal = any(w[:1].isdigit() and w[-2:] in ("st", "nd", "rd", "th") for w in words)
    return ordinal or any(w[:1].isdigit() or w in _COUNTS for w in words[:at])


def _named_thing(phrase: Phrase) -> bool:
    """A thing called by its name, however the recogniser typed it."""
    return _thing(phrase) and (phrase.proper or bool(phrase.name) or phrase.entity == "ORG")


def _judged_out(clause: Clause) -> bool:
    """A thing the person says is not theirs any more, by a negated copula whose
    complement is the person: "X wasn't really me", "X isn't for me", "X wasn't
    my thing" (not a modal or a future: "X won't be for me")."""
    if not (clause.copula and clause.negated) or clause.modal or clause.tense == "future":
        return False
    me = any(o.first_person or (o.head == "thing" and o.mine) for o in clause.objects)
    return me or any(p.first_person for p in clause.attached("for"))


def _thing(phrase: Phrase) -> bool:
    return not phrase.first_person and phrase.head not in _NOT_ENDED


def _mine_as_subject(clause: Clause) -> bool:
    """ "My car's a Honda": the person's thing is the subject of a copula; so is
    a thing of theirs named by its kind alone ("home is a narrowboat", "the vet
    we use now is Greenacre"), in the person's own words."""
    return clause.copula and any(_theirs(s) for s in clause.subjects)


def _theirs(subject: Phrase) -> bool:
    """The person's thing: said to be theirs, or a family's head owned by no one
    else and named by no name ("home", "the car", "the vet")."""
    if subject.mine:
        return True
    owned = subject.possessor != ""
    return not owned and not subject.proper and subject.head in FAMILY_OF_HEAD


def _mine_as_object(clause: Clause) -> bool:
    """ "Google is my employer now": a name is the person's thing."""
    return clause.copula and any(o.mine for o in clause.objects)


_AT_WORK = ("at", "with", "for")


def _value(clause: Clause) -> Value | None:
    """The value a start or state clause names, with its family."""
    if clause.copula:  # "my car's a Honda"; "I'm at the gym" names no value
        if clause.speaker and not clause.objects:
            # "we're in a terrace in Walthamstow now": where one is, by a home's noun
            homes = [p for p in clause.attached("in") if family_of(p, clause) == "home"]
            return _family_value(homes[0], clause) if homes else None
        for subject in clause.subjects:  # "our joint account is with Wenlo": who provides it
            named = [p for p in clause.attached("with", "at") if _named_thing(p)]
            if _theirs(subject) and family_of(subject, clause) == "provider" and named:
                return _as_value("provider", named[0], kind_of=subject)
        things = [o for o in clause.objects if not o.adjective]  # "my flat is cold": no value
        for subject in clause.subjects:
            family = family_of(subject, clause)
            if _theirs(subject) and family is not None and things:
                # "my day job is backend dev at Zentrix Labs": the work is where the role is
                at = [p for prep, p in clause.object_attachments if prep in _AT_WORK and p.proper]
                if family == "work" and at:  # the name, not what is apposed to it
                    return replace(_as_value(family, at[0]), text=at[0].name or at[0].text)
                return _as_value(family, things[0], kind_of=subject)
        for held in clause.objects:  # "Ledgerly Accounts is my own business"
            family = family_of(held, clause)
            named = [s for s in clause.subjects if _named_thing(s)]
            if held.mine and family not in (None, *_BEINGS) and named:
                return _as_value(str(family), named[0])
        return None
    # what a thing of work came from or is at: "accepted an offer from Hale LLP"
    source = [p for prep, p in clause.object_attachments if prep in _SOURCES and p.proper]
    if source and any(FAMILY_OF_HEAD.get(o.head) == "work" for o in clause.objects):
        return _as_value("work", source[0])  # whatever type the recogniser gave the name
    candidates = [*source, *clause.objects, *clause.attached(*START_PREPS)]
    for phrase in candidates:
        found = _family_value(phrase, clause)
        if found is not None:
            return found
    return None


def _family_value(phrase: Phrase, clause: Clause) -> Value | None:
    family = family_of(phrase, clause)
    if family is None:
        return None
    return _placed(_as_value(family, phrase), phrase, clause)


def _placed(value: Value, phrase: Phrase, clause: Clause) -> Value:
    """ "a flat" + "in Leith": the place names which."""
    if not phrase.proper:
        hung = [p for q, p in clause.object_attachments if q in ("in", "at", "on")]
        hung = hung if phrase in clause.objects else []  # "rent a three-bedroom in Solka"
        where = [
            p
            for p in [*clause.attached("in", "at", "on"), *hung]
            if p.entity in _PLACE | {"ORG"} or (p.proper and p.entity not in _TIMES)
        ]  # a name the recogniser did not type is still a place ("in Kabrenro")
        if where and where[0] is not phrase:
            return replace(value, text=f"{phrase.text} in {where[0].text}")
    return value


def _fragment_value(clause: Clause) -> Value | None:
    """The value a verbless note names: a thing of a known family by its head
    ("a flat in Leith"; a "dentist appointment" is no dentist), or an organisation the person stands
    in a relation to by the noun before it: a job ("content producer at
    Brightwave Media"), a membership or a provider's patient or customer."""
    thing = clause.objects[0]
    family = FAMILY_OF_HEAD.get(thing.head) or _known_noun(thing)
    family = family or ("provider" if compound_kind(thing.words) else None)
    if family is None and thing.proper and any(w in CAR_MAKES for w in thing.words):
        family = "vehicle"
    if family == "provider":  # "my current account's with Halifax": who provides it
        named = [p for p in clause.attached("with", "at") if _named_thing(p)]
        if named:
            return _as_value(family, named[0], kind_of=thing)
    if family is not None and family not in ("pet", "partner"):
        return _placed(_as_value(family, thing), thing, clause)
    bodies = [
        p
        for prep, p in clause.attachments
        if prep in ("at", "for", "with", "of") and (p.proper or p.entity in _PLACE | {"ORG"})
    ]
    if not bodies:
        return None
    if thing.head in STANDING:
        return _as_value(STANDING[thing.head], bodies[0])
    return _as_value("work", bodies[0]) if _role(thing.head) else None


def _role(head: str) -> bool:
    """A job word: a listed one, one WordNet files under a worker ("paralegal",
    "bookkeeper"), or an agent noun ("technician", "florist", "surveyor")."""
    if head in ROLE_WORDS or is_role(head):
        return True
    agent = len(head) > 4 and head.endswith(("er", "or", "ist", "ian"))
    return agent and head not in STANDING and head not in FAMILY_OF_HEAD


def _as_value(family: str, phrase: Phrase, kind_of: Phrase | None = None) -> Value:
    """`phrase` as a value of `family`; its kind (a vehicle's, a provider's) read
    from its words, else from `kind_of`'s ("the vet we use is Greenacre")."""
    slot, topic, single = FAMILY_SLOT[family]
    also = kind_of.words if kind_of is not None else ()
    words = [*phrase.words, *also]
    if family == "vehicle":  # the last vehicle word of the value names it ("car bike rack")
        vehicle = [*reversed(phrase.words), *also]
        kind = next((VEHICLE_KINDS[w] for w in vehicle if w in VEHICLE_KINDS), "car")
        slot = f"vehicle:{kind}"
    elif family == "provider":
        known = (k for w in words if (k := provider_kind(w)))  # "Pawsitive Vets"
        kind = compound_kind(tuple(words)) or next(known, "gp")
        slot, topic = f"provider:{kind}", PROVIDER_TOPIC.get(kind, topic)
    return Value(family, slot, topic, single, phrase.text)


def _at_work(phrase: Phrase, clause: Clause) -> bool:
    return phrase.entity not in _TIMES and any(p is phrase for p in clause.attached("at", "for"))


def family_of(phrase: Phrase, clause: Clause) -> str | None:
    """The family of the thing `phrase` names (see the module doc)."""
    if phrase.first_person:
        return None
    words = phrase.words or (phrase.head,)
    if phrase.head in FAMILY_OF_HEAD:
        return _unless_moved(FAMILY_OF_HEAD[phrase.head], phrase, clause)
    if compound_kind(words) is not None:
        return "provider"  # "Elmwood Health Centre", "my current account"
    if _BEDS.search(phrase.text):
        return _unless_moved("home", phrase, clause)  # "a two-bed in Astoria": by its bedrooms
    if any(w in CAR_MAKES for w in words):
        return "vehicle"
    known = _known_noun(phrase)
    if known is not None:
        return _unless_moved(known, phrase, clause)
    if clause.attached("as") and any(r.head in ROLE_WORDS for r in clause.attached("as")):
        return "work"  # "joined Kestrel as an analyst"
    if _begun_thing(phrase, clause) or _where_a_thing_is_done(clause):
        return None  # "started BSL level 1 at the college", "started Arabic at SOAS"
    if phrase.entity == "ORG" and classed(clause, _WORK_VERBS):
        return "work"
    if phrase.proper and clause.lemma in _EMPLOYING and _at_work(phrase, clause):
        return "work"  # "I start at Parcelly": a name, however the recogniser typed it
    if phrase.entity in _PLACE and classed(clause, _HOME_VERBS) and not _moves_things(clause):
        return "home"
    return None


def _unless_moved(family: str, phrase: Phrase, clause: Clause) -> str | None:
    """`family`, unless it is a home a thing, not the person, was moved to
    ("moved the piano into the cottage": `_moves_things`)."""
    moved = family == "home" and phrase not in clause.objects and _moves_things(clause)
    return None if moved and classed(clause, _HOME_VERBS) else family


def _known_noun(phrase: Phrase) -> str | None:
    """The family WordNet's hypernyms give the phrase's noun (`nouns`), when it
    is one a value fills: a name only for the families brands name."""
    found = noun_family(phrase.words, phrase.head)
    if found is None or found not in FAMILY_SLOT:
        return None
    return found if not phrase.proper or found in _BRANDED else None


def _begun_thing(phrase: Phrase, clause: Clause) -> bool:
    """What one starts is a thing begun ("started BSL level 1"), a job only by
    its head ("started a new job"); one joins or leaves an employer by name."""
    return clause.lemma in _BEGINS and any(p is phrase for p in clause.objects)


def _where_a_thing_is_done(clause: Clause) -> bool:
    """ "Started Arabic at SOAS": the place holds the thing begun, not the
    person's job, unless the thing is work ("started a new job at Kestrel")."""
    begun = [o for o in clause.objects if o.head not in _NOT_OBJECTS]  # not "anyway"
    if clause.lemma not in _BEGINS or not begun:
        return False
    return not any(FAMILY_OF_HEAD.get(o.head) == "work" for o in begun)


def _moves_things(clause: Clause) -> bool:
    """ "moved everything over to Chase UK": the move is of a thing that is no
    home, so where it goes is no home either."""
    moving = clause.lemma in _MOVES
    return moving and any(FAMILY_OF_HEAD.get(o.head) != "home" for o in clause.objects)
