"""What a new fact does to the facts already on its page: add, update, retract,
history or none, decided without a model.

- A fact told as the past ("I used to live in Leeds") only adds.
- On a **single-valued** slot (one home, one employer), a new value replaces
  the current fact of that slot when it is newer; one dated before it (a
  backdated arrival, `remember --at`) goes into the history instead, replaced
  by the fact that is newer.
- On a slot that holds **many values** (pets, tools of different kinds), a new
  value replaces an old one only when the fact says so: change language that
  names the old value ("switched from VS Code to Neovim", "no longer X").
  A fact that only resembles an old one is added beside it.
- A fact that names the old value but no new one ("I broke up with Tom", "I
  no longer eat meat") retracts the old fact rather than replacing it.
- The same value told again adds (a restatement may say more), except a
  preference, which keeps one current fact in its newest words; the exact
  same text adds nothing (the writer's duplicate rule).

The LLM planner's answers (`Intent`) are checked against the same page: ids
must be current facts there; whatever fails the check falls back to this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from substrate.meaning.slots import SlotReading, mentions, read_slot, same_value
from substrate.meaning.subjects import read_subject
from substrate.pages import FactBullet
from substrate.safety import linear

Action = Literal["add", "update", "retract", "history", "none"]


@dataclass(frozen=True)
class Decision:
    """`targets`: the current facts an update replaces or a retraction ends; for
    `history`, the one newer fact that replaces this one."""

    action: Action
    slot: str | None
    targets: tuple[str, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class Intent:
    """A planner's word on a fact (the LLM's `update` / `retract` / `none`): the
    fact ids it names, checked against the page before anything is written."""

    action: Literal["add", "update", "retract", "none"]
    ids: tuple[str, ...] = ()
    reason: str = ""


@lru_cache(maxsize=4096)
def reading_of(text: str) -> SlotReading:
    """The slot reading of a fact, in its subject's own words."""
    return read_slot(read_subject(text).own)


def decide(new: FactBullet, reading: SlotReading, page: Sequence[FactBullet]) -> Decision:
    """What `new` (with its slot reading) does to `page`'s facts (see the module doc)."""
    current = [b for b in page if b.current and b.entry_id and b.key != new.key]
    if reading.past:
        return Decision("add", None, reason="told as the past: history, not an update")
    if reading.slot is None:
        return _unslotted(reading, current, new)
    same = [b for b in current if _slot(b) == reading.slot]
    if reading.single:
        targets = [b for b in same if not _restates(b, reading)]
        if not targets and same and reading.slot.startswith("pref:"):
            targets = same  # a preference told again: one current, in its newest words
        elif not targets and same:
            targets = [b for b in same if recounts(b.text, new.text)]  # the same, recounted
            if not targets:
                return Decision("add", reading.slot, reason=f"{reading.slot}: the same value again")
    else:
        targets = [b for b in same if _named_old(b, reading) or recounts(b.text, new.text)]
    kept = [b for b in targets if _outranks(b, new)]
    if kept and len(kept) == len(targets):
        why = "captured words, not a direct first-person statement, leave a remembered fact"
        return Decision("add", reading.slot, reason=f"{reading.slot}: {why}")
    targets = [b for b in targets if b not in kept]
    if not targets:
        why = "the first fact on it" if not same else "it adds a value, nothing says one ended"
        return Decision("add", reading.slot, reason=f"{reading.slot}: {why}")
    if any(b.day > new.day for b in targets):
        after = sorted(
            (b for b in page if b.entry_id and _slot(b) == reading.slot and b.day > new.day),
            key=lambda b: b.day,
        )  # replaced by the first value told after it, current or not
        return Decision(
            "history",
            reading.slot,
            (str(after[0].entry_id),),
            f"{reading.slot}: dated {new.day}, before the fact of {after[0].day} that replaced it",
        )
    ids = tuple(str(b.entry_id) for b in targets)
    if reading.value is None and reading.olds:
        return Decision("retract", reading.slot, ids, f"{reading.slot}: says the old value ended")
    return Decision("update", reading.slot, ids, f"{reading.slot}: a newer value")


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
    if not (reading.change and reading.olds):
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


def recounts(old: str, new: str) -> bool:
    """`new` states the same thing as `old` with another count: most of their words
    are shared, and the numbers they hold differ."""
    a, b = frame_of(old), frame_of(new)
    shared = a.words & b.words
    return (
        bool(a.numbers and b.numbers)
        and a.numbers != b.numbers
        and len(shared) >= FRAME_WORDS
        and len(shared) >= FRAME_SHARE * min(len(a.words), len(b.words))
    )


def check_intent(intent: Intent, new: FactBullet, page: Sequence[FactBullet]) -> Decision | None:
    """The planner's intent as a decision, or None when it names a fact that is
    not a current fact of this page (the caller falls back to `decide`)."""
    reading = reading_of(new.text)
    if intent.action in ("add", "none"):
        return Decision(intent.action, reading.slot, reason=intent.reason)
    current = {b.entry_id for b in page if b.current and b.entry_id}
    if not intent.ids or any(i not in current for i in intent.ids):
        return None
    return Decision(intent.action, reading.slot, intent.ids, intent.reason)


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
    value = reading_of(bullet.text).value
    return same_value(value, old) or mentions(bullet.text, old)


_DIRECT = linear(
    r"(?i)^(?:i|i'm|i've|i'd|i'll|im|we|we're|we've|my|our|me and|i am|i have)\b"
    r"|^[\x{0600}-\x{06ff}]"
)
FRAME_WORDS = 3  # shared content words, at least
FRAME_SHARE = 0.5  # of the shorter fact's content words
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


@dataclass(frozen=True)
class Frame:
    words: frozenset[str]
    numbers: frozenset[str]


@lru_cache(maxsize=4096)
def frame_of(text: str) -> Frame:
    """A fact's content words (plural folded) and the numbers it states."""
    words: set[str] = set()
    numbers: set[str] = set()
    for raw in text.lower().replace(",", "").split():
        word = raw.strip(".!?;:()\"'")
        digits = word.rstrip("stndrh") if word[:1].isdigit() else ""
        if digits.replace(".", "", 1).isdigit():
            numbers.add(digits)
        elif word in _NUMBER_WORDS:
            numbers.add(_NUMBER_WORDS[word])
        elif word and word not in _FRAME_STOP and word.isalpha():
            words.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return Frame(frozenset(words), frozenset(numbers))
