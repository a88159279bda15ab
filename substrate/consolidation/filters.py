"""What is never filed, with the reason recorded: echoes of the blocks we
inject (an assistant that saves its own context back fills memory with
copies of memory), entries with nothing to say, and text the scanner refuses
now on firm evidence (its rules may have grown since the entry was
remembered); and what waits, held for review: a person's words that a
judgement rule or the learned detector reads as an attack stay in the buffer,
never filed and never dropped, until the operator releases them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from substrate.intake.buffer import BufferEntry
from substrate.safety import Scanner, has_echo, linear, runs

PHATIC = frozenset(
    """ok okay k kk thanks thank you thx ty cheers hi hello hey bye goodbye yes no yep
    nope sure great cool nice good fine lol haha hmm hm wow yay noted done right alright
    got it sounds good will do np""".split()
)
_WORD = runs(r"\w+")
_HINT = linear(r"\[\[[^\]]*\]\]")


@dataclass(frozen=True)
class Screened:
    """What the filters decided for an entry that may not be filed now."""

    action: Literal["skip", "hold"]
    reason: str
    rule: str | None = None  # the rule that holds it (`hold` only)
    new: bool = False  # held by this screening: its mark is still to be written


def screen(entry: BufferEntry, scanner: Scanner) -> Screened | None:
    """Skip, hold, or None when the entry may be filed. A released entry is
    held no more; firm evidence still skips it."""
    why = skip_reason(entry.text, scanner)
    if why is not None:
        return Screened("skip", why)
    if entry.held is not None:
        return Screened("hold", held_reason(entry.id, entry.held), entry.held)
    verdict = scanner.check(entry.text, "user", learned=not entry.released)
    if verdict.ok or (entry.released and not verdict.firm):
        return None
    if not verdict.firm:
        rule = verdict.held_rule
        return Screened("hold", held_reason(entry.id, rule), rule, new=True)
    return Screened("skip", f"refused by scanner rule {verdict.rule!r}: {verdict.detail}")


def held_reason(entry_id: str, rule: str) -> str:
    return (
        f"held for review: scanner rule {rule!r} reads it as an attack; "
        f"`memory release {entry_id}` files it"
    )


def skip_reason(text: str, scanner: Scanner) -> str | None:
    """Why an entry must not be filed whatever the scanner's judgement says
    (an echo, nothing to say, firm evidence), or None."""
    if has_echo(text):
        return "echoes a block the assistant was shown (memory card, info or profile)"
    words = [w.lower() for w in _WORD.findall(_HINT.sub(" ", text))]
    if not words:
        return "empty: nothing to file"
    if all(w in PHATIC for w in words) and len(words) <= 4:
        return "phatic: an acknowledgement, not a fact"
    # the user's words, judged again by today's rules: only firm evidence drops
    # them (a judgement holds them, in `screen`)
    verdict = scanner.check(text, "user", learned=False)
    if not verdict.ok and verdict.firm:
        return f"refused by scanner rule {verdict.rule!r}: {verdict.detail}"
    return None
