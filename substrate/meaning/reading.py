"""One reading of a text, the same on every path: whose words, about whom, which
slot and family, and what it does (asserts, ends, supposes).

`read_text` runs, in order: attribution (`attribution`: words passed on are
nobody's fact of the person's and take no slot), the subject (`subjects`:
the person, a named person, nobody known), the slot the subject's own words
state (`slots`), and the statement's kind (`statements`): a hypothetical
takes no slot; a cessation names what ended and, unless it also names a new
value ("I left Brightwater and joined Kestrel"), states no value of its own.
`remember --explain`, consolidation's filer and lifecycle, and capture all
read through here, so one text means one thing wherever it arrives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from substrate.meaning.anchors import things_of, told_as_new
from substrate.meaning.arabic import has_arabic
from substrate.meaning.attribution import PASSED_ON, Attribution, attribute
from substrate.meaning.events import Events, read_events
from substrate.meaning.families import TOPIC, family_of, thing_family
from substrate.meaning.parser import common_noun
from substrate.meaning.slot_rules import REPLACING_AR, REPLACING_EN
from substrate.meaning.slots import SlotReading, clean, read_slot, same_value
from substrate.meaning.statements import ASSERTION, CESSATION, HYPOTHETICAL, Kind, kind_of
from substrate.meaning.subjects import Subject, read_subject
from substrate.safety import linear

NOTHING = SlotReading(None, None)


@dataclass(frozen=True)
class Reading:
    """`slot`: what the subject's own words state (no slot for words passed on
    or a hypothetical). `kind`: assertion, cessation or hypothetical."""

    attribution: Attribution
    subject: Subject
    slot: SlotReading
    kind: Kind

    @property
    def family(self) -> str | None:
        return family_of(self.slot.slot)

    @property
    def passed_on(self) -> bool:
        return self.attribution.voice == PASSED_ON

    def as_json(self) -> dict[str, Any]:
        """What `remember --explain` shows of the reading."""
        slot = self.slot
        return {
            **self.attribution.as_json(),
            "subject": self.subject.kind,
            "subject_name": self.subject.name,
            "kind": self.kind,
            "slot": slot.slot,
            "family": self.family,
            "value": slot.value,
            "ended": list(slot.olds),
            "past": slot.past,
        }


@lru_cache(maxsize=8192)
def read_text(text: str) -> Reading:
    """The reading of one remembered or captured text (see the module doc)."""
    said = attribute(text)
    if said.voice == PASSED_ON:
        return Reading(said, Subject("other", ""), NOTHING, ASSERTION)
    subject = read_subject(said.own)
    # the person's words as the subject reads them ("day job: …" as "My day job is …")
    events = read_events(subject.own if subject.kind == "me" else said.own)
    if subject.kind == "other" and (events.changed or events.state is not None):
        # "Sold the Fiesta", "content producer at Brightwave": the person, as diaries say
        subject = replace(subject, kind="me")
    held = events.start or events.state
    if _a_thing_named(subject) and _starts_own(said.own, events):
        # "Lease was up so we've relocated to Jersey City": a common noun opens the
        # sentence, the person's own start is what it tells
        subject = Subject("me", said.own)
    elif subject.kind == "named" and held is not None and held.text == subject.name:
        # "Kestrel Labs hired me", "Google is my employer": the name is the
        # person's value, not someone the statement is about
        subject = Subject("me", said.own)
    reading = read_slot(subject.own)
    kind, ended = kind_of(subject.own)
    if kind == HYPOTHETICAL:
        return Reading(said, subject, replace(NOTHING, past=reading.past), kind)
    if subject.kind == "named" and not subject.cue:
        # a named person's statement told in their first person ("Mum finally
        # downsized, she's in a bungalow" -> "I finally downsized, I am in a
        # bungalow"): the parse reads their values as it reads the person's
        theirs = read_events(subject.own)
        ends = tuple(dict.fromkeys([*events.ends, *theirs.ends]))
        events = replace(events, ends=ends, start=theirs.start, state=theirs.state)
    reading, ended = _structured(reading, ended, events, subject.kind in ("me", "named"))
    if ended and kind == ASSERTION:
        kind = CESSATION
    if kind == CESSATION:
        olds = tuple(dict.fromkeys([*reading.olds, *ended]))
        family = family_of(reading.slot) or thing_family(olds)
        topic = reading.topic or (TOPIC.get(family) if family else None)
        reading = replace(reading, olds=olds, change=True, topic=topic)
        if reading.value is not None and any(same_value(reading.value, o) for o in ended):
            reading = replace(reading, value=None)  # "لم أعد أسكن في القاهرة": what ended
        if reading.value is not None:
            kind = ASSERTION  # "I left Brightwater and joined Kestrel": a new value
    said_by_me = subject.kind == "me" or _a_thing_named(subject)
    if said_by_me and not reading.past and _replaces(said.own, events):
        reading = replace(reading, things=things_of(said.own))
    return Reading(said, subject, replace(reading, kind=kind), kind)


def _structured(
    reading: SlotReading, ended: tuple[str, ...], events: Events, mine: bool
) -> tuple[SlotReading, tuple[str, ...]]:
    """The parse's events joined to the phrase rules' reading: what an end or an
    exchange names is ended too, and a value the rules did not read takes the
    slot of its family (`events`)."""
    olds = tuple(dict.fromkeys([*ended, *(clean(e) or "" for e in events.ends)]))
    olds = tuple(o for o in olds if o)
    value = (events.start or events.state) if mine else None
    if value is not None and value.family == "pet":
        value = None  # a pet's page is named by the pet's name, which the rules read
    if reading.slot is None and value is not None and not reading.past:
        reading = replace(
            reading,
            slot=value.slot,
            topic=value.topic,
            single=value.single,
            value=clean(value.text),
            change=reading.change or events.start is not None,
        )
    return reading, olds


_REPLACING = linear(REPLACING_EN)
_REPLACING_AR = linear(REPLACING_AR)


def _replaces(own: str, events: Events) -> bool:
    """The person's words say something took another's place: an end or an
    exchange, a word of replacement ("instead", "no more", "these days",
    "بدل"), or a new value of a thing told as its new one ("the club's new
    home is …"). A start alone adds beside what was ("joined a course")."""
    if events.ends or events.shifted or _REPLACING.search(own):
        return True
    if has_arabic(own):
        return bool(_REPLACING_AR.search(own))
    return told_as_new(own)


def _starts_own(own: str, events: Events) -> bool:
    """The words start a value of the person's own: a new home or job, by the
    parse or by the rules ("we moved to Marka")."""
    if events.start is not None:
        return events.start.family != "pet"
    return read_slot(own).slot in ("home", "employer")


def _a_thing_named(subject: Subject) -> bool:
    """A statement led by a capitalised phrase of words the lexicon knows as
    common nouns, told of no one's relation ("Pottery's on hold for now", "Choir got
    boring"): the person's thing, or a pet by a common word's name, whose
    fact it may change either way."""
    words = (subject.name or "").split()
    told = subject.kind == "named" and not subject.cue and subject.relation is None
    # capitalised only where the sentence opens ("Chess club", not "Acme Labs")
    plain = bool(words) and all(w[1:].islower() and common_noun(w) for w in words)
    return told and plain and all(w.islower() for w in words[1:])


def slot_reading(text: str) -> SlotReading:
    """The slot reading of `text` alone (what lifecycle decides with)."""
    return read_text(text).slot
