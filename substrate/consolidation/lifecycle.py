"""What a new fact does to the facts already on its page: add, update, retract,
history or none, decided without a model, by family and by target.

The candidates are the current facts of the same subject (the page and its
family of continuation pages) in the new fact's slot family
(`meaning.families`): a new job is weighed against the employer *and* the
role, a new phone number against the phone, never the e-mail.

- A fact told as the past ("I used to live in Leeds") or as a hypothetical
  (a plan, a wish, a condition) only adds.
- A **cessation** ("I left Brightwater", "I sold my Fiat", "I no longer live
  on Dalry Road") retracts the current fact that names what ended, or, when
  it names it only by kind ("I quit my job"), the newest current fact of that
  family; never a fact dated after it. When no fact matches it is kept as a
  dated fact: nothing to retract.
- On a **single-valued** slot (one home, one employer), a new value replaces
  the current fact of that slot (and the slots its family ends with it) when
  it is newer; one dated before it (a backdated arrival, `remember --at`)
  goes into the history instead, replaced by the fact that is newer.
- On a slot that holds **many values** (pets, tools of different kinds), a new
  value replaces an old one only when the fact says so: change language that
  names the old value ("switched from VS Code to Neovim", "no longer X").
  A fact that only resembles an old one is added beside it.
- The same value told again adds (a restatement may say more), except a
  preference, which keeps one current fact in its newest words; the exact
  same text adds nothing (the writer's duplicate rule).

An LLM planner only labels (which current facts the new one contradicts or
ends): its labels are checked against the same page and the same rules
decide (`check_intent`); whatever fails the check falls back to this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Literal

from substrate.consolidation.counts import changes_a_measure, recounts, remeasures
from substrate.meaning.anchors import anchor, thing_of
from substrate.meaning.arabic import has_arabic
from substrate.meaning.families import GENERIC, family_of, replaces, thing_family
from substrate.meaning.parser import clauses
from substrate.meaning.reading import read_text, slot_reading
from substrate.meaning.slot_rules import PARTNER_BONDS, PARTNER_SINGLE
from substrate.meaning.slots import SlotReading, mentions, same_value
from substrate.meaning.typing import leans
from substrate.pages import FactBullet
from substrate.safety import linear

Action = Literal["add", "update", "retract", "history", "none"]
NOTHING_TO_RETRACT = "nothing to retract"
# What a decision is called where a person reads it (`consolidate --explain`).
SAID = {"update": "supersedes", "retract": "retracts", "add": "adds", "history": "history",
        "none": "merged"}  # fmt: skip


@dataclass(frozen=True)
class Decision:
    """`targets`: the current facts an update replaces or a retraction ends; for
    `history`, the one newer fact that replaces this one. `family`: the slot
    family weighed; `candidates`: the current facts weighed against the new
    one; `said`: the decision in words (`supersedes`, `retracts`, `nothing to
    retract`, `adds`, `history`)."""

    action: Action
    slot: str | None
    targets: tuple[str, ...] = ()
    reason: str = ""
    family: str | None = None
    candidates: tuple[str, ...] = ()
    said: str = ""

    @property
    def label(self) -> str:
        return self.said or SAID[self.action]


@dataclass(frozen=True)
class Intent:
    """A planner's word on a fact (the LLM's `update` / `retract` / `none`): the
    fact ids it names, checked against the page before anything is written."""

    action: Literal["add", "update", "retract", "none"]
    ids: tuple[str, ...] = ()
    reason: str = ""


def reading_of(text: str) -> SlotReading:
    """The slot reading of a fact: its own words (not what it passes on), in
    its subject's first person (`meaning.reading`)."""
    return slot_reading(text)


def decide(new: FactBullet, reading: SlotReading, page: Sequence[FactBullet]) -> Decision:
    """What `new` (with its slot reading) does to `page`'s facts (see the module doc)."""
    decision = _decide(new, reading, page)
    if decision.family is None:
        decision = replace(decision, family=family_of(reading.slot))
    return decision


def _decide(new: FactBullet, reading: SlotReading, page: Sequence[FactBullet]) -> Decision:
    current = [b for b in page if b.current and b.entry_id and b.key != new.key]
    if reading.past:
        return Decision("add", None, reason="told as the past: history, not an update")
    if reading.kind == "hypothetical":
        return Decision("add", None, reason="a plan, wish or supposition: it states nothing yet")
    if reading.cessation and reading.value is None and reading.olds:
        return _cessation(new, reading, current)
    if leans(reading.slot):
        return _leaning(new, reading, current) or _unslotted(reading, current, new)
    if reading.slot is None:
        return _unslotted(reading, current, new)
    if reading.single:
        same = [b for b in current if replaces(reading.slot, _slot(b))]
    else:
        same = [b for b in current if _slot(b) == reading.slot]
    weighed = _ids(same)
    if reading.single:
        targets = [b for b in same if not _restates(b, reading)]
        if not targets and same and reading.slot.startswith("pref:"):
            targets = same  # a preference told again: one current, in its newest words
        elif not targets and same:
            targets = [b for b in same if recounts(b.text, new.text)]  # the same, recounted
            if not targets:
                return Decision(
                    "add", reading.slot, reason=f"{reading.slot}: the same value again",
                    candidates=weighed,
                )  # fmt: skip
    else:
        targets = [b for b in same if _named_old(b, reading) or recounts(b.text, new.text)]
    if reading.slot == "partner":
        targets = [b for b in targets if _bond_ends(reading.value, reading_of(b.text).value)]
    # a fact it says ended ("gone off Earl Grey, it's coffee now") ends too,
    # whatever slot that fact was read with
    ended = [b for b in current if b not in same and b.day <= new.day and _named_old(b, reading)]
    if not targets and not ended:
        # "the vet we use now is …" beside "Biscuit goes to Pawsitive Vets": a
        # fact of the same family naming the same thing, read with another slot
        ended = _anchored([b for b in current if _kin(reading, b, new.day)], reading.things)
    targets += ended
    weighed += _ids(ended)
    kept = [b for b in targets if _outranks(b, new)]
    if kept and len(kept) == len(targets):
        why = "captured words, not a direct first-person statement, leave a remembered fact"
        return Decision("add", reading.slot, reason=f"{reading.slot}: {why}", candidates=weighed)
    targets = [b for b in targets if b not in kept]
    if not targets:
        why = "the first fact on it" if not same else "it adds a value, nothing says one ended"
        return Decision("add", reading.slot, reason=f"{reading.slot}: {why}", candidates=weighed)
    if any(b.day > new.day for b in targets):
        after = sorted(
            (b for b in page if b.entry_id and _competes(reading, b) and b.day > new.day),
            key=lambda b: b.day,
        )  # replaced by the first value told after it, current or not
        return Decision(
            "history",
            reading.slot,
            (str(after[0].entry_id),),
            f"{reading.slot}: dated {new.day}, before the fact of {after[0].day} that replaced it",
            candidates=weighed,
        )
    ids = _ids(targets)
    return Decision(
        "update", reading.slot, ids, f"{reading.slot}: a newer value", candidates=weighed
    )


def _leaning(new: FactBullet, reading: SlotReading, current: list[FactBullet]) -> Decision | None:
    """A statement the family head leans to (`typing.LEAN`) ends the newest
    older fact it leaned the same way on, when it says something took another's
    place (change words, or a thing a change names); else None."""
    if not (reading.change or reading.things):
        return None
    same = sorted((b for b in current if _slot(b) == reading.slot and b.day <= new.day),
                  key=lambda b: b.day)  # fmt: skip
    if not same:
        return None
    why = f"{reading.slot}: both lean to one family, and the newer says it replaced"
    return Decision("update", reading.slot, _ids(same[-1:]), why, candidates=_ids(same))


def _cessation(new: FactBullet, reading: SlotReading, current: list[FactBullet]) -> Decision:
    """A statement that something named ended: the current facts that name it,
    or (named by kind: "my job") the newest current fact of that family; never
    one dated after the statement."""
    ended = ", ".join(reading.olds)
    family = family_of(reading.slot) or thing_family(reading.olds)
    older = [b for b in current if b.day <= new.day]
    things = [o for o in reading.olds if not _generic(o)]
    named = [b for b in older if any(_says_old(b, o) for o in things)]
    if len(named) > 1 and not any(_named_thing(o, new.text) for o in things):
        named = _anchored(named, things)  # "the league" in two facts: which one?
    elif not named:
        named = _anchored(older, things)
    if not named and any(_generic(o) for o in reading.olds) and family is not None:
        kin = [b for b in older if family_of(_slot(b)) == family]
        named = sorted(kin, key=lambda b: b.day)[-1:]
    weighed = _ids([b for b in current if named and b in named] or _of_family(current, family))
    if not named:
        newer = [
            b for b in current if b.day > new.day and any(_mentions_old(b, o) for o in reading.olds)
        ]
        why = "the fact that names it is dated after this statement" if newer else (
            "no current fact names it"
        )  # fmt: skip
        return Decision(
            "add", None, reason=f"{NOTHING_TO_RETRACT}: {why} ({ended})", family=family,
            candidates=weighed, said=NOTHING_TO_RETRACT,
        )  # fmt: skip
    return Decision(
        "retract", None, _ids(named), f"says {ended} ended", family=family, candidates=weighed
    )


def weighs_against(
    reading: SlotReading, day: date, text: str = ""
) -> Callable[[FactBullet], bool] | None:
    """Which facts a new fact read as `reading`, dated `day` and worded `text`
    may end: the writer files it beside one, so a fact and what it replaces
    share a page. None for a fact that ends nothing (no slot, no value named
    as ended, no amount it says changed)."""
    if reading.past or reading.kind == "hypothetical":
        return None
    if reading.cessation and reading.value is None and reading.olds:
        family = family_of(reading.slot) or thing_family(reading.olds)
        named = [o for o in reading.olds if not _generic(o)]
        return lambda b: (
            b.day <= day
            and (
                any(_mentions_old(b, o) for o in named)
                or (len(named) < len(reading.olds) and family_of(_slot(b)) == family)
            )
        )
    if reading.slot is not None and (reading.single or reading.olds or reading.things):
        return lambda b: (
            _competes(reading, b) or (_kin(reading, b, day) and bool(_things_named(b, reading)))
        )
    if reading.slot is None and reading.things:
        return lambda b: b.day <= day and bool(_things_named(b, reading))
    if reading.slot is None and changes_a_measure(text):
        return lambda b: b.day <= day and remeasures(b.text, text)
    return None


def _bond_ends(new: str | None, old: str | None) -> bool:
    """Whether a partner value ends an old one: being single ends any; a bond
    told without a name ("we got married") ends only being single, never the
    partner a fact names; a name ends a name or being single, not a bond
    ("I got married in June" stays beside "my wife is Sara")."""
    if new in PARTNER_SINGLE:
        return True
    if new in PARTNER_BONDS:
        return old in PARTNER_SINGLE
    return old not in PARTNER_BONDS


def _generic(value: str) -> bool:
    """What ended is named by its kind ("job", "old car"), not by a name; an
    Arabic phrase puts its head first ("الخطوبة أمس")."""
    words = value.split()
    if not 0 < len(words) <= 2:
        return False
    return (words[0] if has_arabic(words[0]) else words[-1]) in GENERIC


def _competes(reading: SlotReading, bullet: FactBullet) -> bool:
    slot = _slot(bullet)
    return replaces(reading.slot, slot) if reading.single else slot == reading.slot


def _kin(reading: SlotReading, bullet: FactBullet, day: date) -> bool:
    """A fact no newer than `day` of the reading's family under another slot."""
    family = family_of(reading.slot)
    slot = _slot(bullet)
    return (
        family is not None
        and slot != reading.slot
        and family_of(slot) == family
        and (bullet.day <= day)
    )


def _things_named(bullet: FactBullet, reading: SlotReading) -> list[str]:
    """The things of a change (`reading.things`) that `bullet` names."""
    return [t for t in reading.things if anchor(bullet.text, t) > 0]


def _of_family(current: list[FactBullet], family: str | None) -> list[FactBullet]:
    return [b for b in current if family is not None and family_of(_slot(b)) == family]


def _ids(bullets: Sequence[FactBullet]) -> tuple[str, ...]:
    return tuple(str(b.entry_id) for b in bullets)


def _unslotted(
    reading: SlotReading, current: list[FactBullet], new: FactBullet | None = None
) -> Decision:
    """No known slot: change language that names an old value ends a fact, and a
    newer count of the same thing ("I've added 17 postcards since…" then "…25
    postcards since…") replaces the older count."""
    recounted = [b for b in current if new is not None and recounts(b.text, new.text)]
    if recounted and new is not None and all(b.day <= new.day for b in recounted):
        ids = tuple(str(b.entry_id) for b in recounted)
        return Decision("update", None, ids, "a newer count of the same thing")
    measured = [b for b in current if new is not None and remeasures(b.text, new.text)]
    if len(measured) == 1 and new is not None and measured[0].day <= new.day:
        return Decision("update", None, _ids(measured), "a new amount of the same measure")
    if not (reading.change and reading.olds):
        named = _anchored([b for b in current if new is None or b.day <= new.day], reading.things)
        if named and new is not None:
            things = ", ".join(_things_named(named[0], reading))
            return Decision("update", None, _ids(named), f"a change to what it names ({things})")
        return Decision("add", None, reason="no slot: added")
    ended = [b for b in current if any(_mentions_old(b, old) for old in reading.olds)]
    if not ended:
        return Decision("add", None, reason="names an old value no current fact holds")
    ids = tuple(str(b.entry_id) for b in ended)
    return Decision("retract", None, ids, f"says {', '.join(reading.olds)} ended")


def _outranks(old: FactBullet, new: FactBullet) -> bool:
    """A fact the person remembered outranks a captured one unless the captured
    words are their direct first-person statement ("I moved to Salford"), not a
    sentence the capture drew from around it."""
    if new.source != "captured" or old.source == "captured":
        return False
    return not _DIRECT.match(new.text.strip())


def check_intent(
    intent: Intent, new: FactBullet, reading: SlotReading, page: Sequence[FactBullet]
) -> Decision | None:
    """A planner's labels (the current facts it says the new one contradicts or
    ends) checked and decided by the same rules: None when it names no current
    fact of this page (the caller falls back to `decide`). Words passed on, a
    hypothetical or the past end nothing, whatever the label; a labelled fact
    of another family is not ended; one dated after the new fact makes the new
    one history, never the reverse."""
    ruled = decide(new, reading, page)
    if intent.action in ("add", "none"):
        return ruled
    current = {b.entry_id: b for b in page if b.current and b.entry_id}
    if not intent.ids or any(i not in current for i in intent.ids):
        return None
    named = [current[i] for i in intent.ids]
    label = f"the planner labelled {', '.join(intent.ids)} as {intent.action}d"
    if reading.past or reading.kind == "hypothetical" or read_text(new.text).passed_on:
        return replace(ruled, reason=f"{label}, refused: the fact states nothing current")
    fits = [b for b in named if _fits(reading, b)]
    if not fits:
        return replace(ruled, reason=f"{label}, refused: another slot family")
    newer = sorted((b for b in fits if b.day > new.day), key=lambda b: b.day)
    if newer:
        why = f"{label}; dated {new.day}, before the fact of {newer[0].day}"
        return Decision("history", reading.slot, (str(newer[0].entry_id),), why)
    action: Action = "retract" if reading.value is None and intent.action == "retract" else "update"
    ruled_ids = ruled.targets if ruled.action == action else ()
    targets = tuple(dict.fromkeys([*ruled_ids, *_ids(fits)]))
    return Decision(
        action,
        reading.slot if action == "update" else None,
        targets,
        f"{label}; checked: current, older, same family ({intent.reason})",
        family=family_of(reading.slot),
        candidates=ruled.candidates or targets,
    )


def _fits(reading: SlotReading, bullet: FactBullet) -> bool:
    """A labelled fact the new one may end: of its slot family, or either unslotted."""
    slot = _slot(bullet)
    return slot is None or reading.slot is None or family_of(slot) == family_of(reading.slot)


def _slot(bullet: FactBullet) -> str | None:
    return bullet.slot or reading_of(bullet.text).slot


def _restates(bullet: FactBullet, reading: SlotReading) -> bool:
    """The current fact already holds exactly the new value (and nothing says it
    ended): "analyst" is not "senior analyst"."""
    old = reading_of(bullet.text).value
    return old is not None and old == reading.value and old not in reading.olds


def _named_old(bullet: FactBullet, reading: SlotReading) -> bool:
    return any(_mentions_old(bullet, old) for old in reading.olds)


def _mentions_old(bullet: FactBullet, old: str) -> bool:
    """The fact names what ended: as written, or by the lemmas of its head
    (`anchors`: "the bowling league" in "bowling league at Bowlero")."""
    return _says_old(bullet, old) or anchor(bullet.text, old) > 0


def _says_old(bullet: FactBullet, old: str) -> bool:
    value = reading_of(bullet.text).value
    return same_value(value, old) or mentions(bullet.text, old)


def _named_thing(old: str, said: str) -> bool:
    """What ended is called by a name (or its words have no parse to weigh): read
    as the statement wrote it, since a value is compared folded ("pickle" of
    "Pickle died", whose every fact names the one it ended)."""
    thing = thing_of(old)
    if thing is None or thing.names:
        return True
    fold = old.casefold()
    return any(
        p.proper and bool(p.name) and p.text.casefold() == fold
        for clause in clauses(said)
        for p in (*clause.subjects, *clause.nominals)
    )


def _anchored(facts: list[FactBullet], olds: Sequence[str]) -> list[FactBullet]:
    """The one fact that names an ended thing best by its lemmas (`anchors`);
    none when two name it equally well ("the league": which one?)."""
    scored = [(max((anchor(b.text, o) for o in olds), default=0), b) for b in facts]
    top = max((score for score, _ in scored), default=0)
    best = [b for score, b in scored if score == top and top > 0]
    return best if len(best) == 1 else []


_DIRECT = linear(
    r"(?i)^(?:i|i'm|i've|i'd|i'll|im|we|we're|we've|my|our|me and|i am|i have)\b"
    r"|^[\x{0600}-\x{06ff}]"
)
