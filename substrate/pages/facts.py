"""Owns a managed fact bullet: its line format and its lifecycle.

A bullet is one fact consolidation filed (the section that holds them is
`fact_section`'s):

    - [2024-06-02] I moved to Manchester. <!-- e:3f2a9c1b7d4e slot:home -->
    - [2024-03-01] I live in Leeds. _(until 2024-06-02; replaced by: I moved to
      Manchester.)_ <!-- e:9c8b7a6d5e4f slot:home status:superseded by:3f2a9c1b7d4e
      until:2024-06-02 -->                                   (one line in the file)

It carries the date of the fact (the buffer entry's own date) and the id of
the entry it was filed from, so a rerun sees what is already filed. The id
sits in a marker, an HTML comment invisible in rendered markdown, that holds
the rest of the fact's state as `key:value` words: `src:captured` (drawn from
a conversation, not remembered by the user), `slot:` (what the fact is about:
`home`, `employer`, `pref:drink`) and, for a fact no longer true, its status:
`from:` (a captured fact's lineage: the logged messages it was drawn from),
`status:superseded` with `by:` the fact that replaced it and `until:` the day,
or `status:retracted` (no longer true since `until:`; `via:forget` when the
person asked memory to forget it, `via:correct` on a fact that corrected another),
or `status:ended`: the words that told an end ("rehomed Rolo with a farm
family"), true as history but no current value; when a statement also told a
new value, its end is a bullet of its own whose id is the statement's with
`-1` (its lineage: forgetting the statement forgets it too). A fact no longer
current also shows a visible note, `_(until …; replaced by: …)_`, rendered
from the marker, so any markdown viewer tells the history without a database.
Markers the reader does not know are kept as written. `strip_markers` removes
markers before a page is chunked, embedded or excerpted, so neither BM25 nor a
card ever sees an entry id. Parsing is a pass over each line (no pattern reads
a bullet), so a page of any length costs its length.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal

from substrate.lineage import decode_sources
from substrate.safety.markers import inert, restored
from substrate.safety.patterns import linear

INDENT = "  "
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_ID = r"[0-9a-f]{12}(?:-[0-9]{1,6})?"
MARK = linear(rf" ?<!-- e:{_ID}(?: [a-z_]+:[^ >]*)* -->")  # a whole marker
MARK_OPEN = " <!-- e:"
MARK_CLOSE = " -->"
CAPTURED = "captured"
# How a captured fact reads on the card and in the index: it was drawn from a
# conversation, not stated to memory by the user.
CAPTURED_NOTE = "(captured from a conversation) "
NOTE_OPEN = " _(until "
NOTE_CLOSE = ")_"
RETRACTED_NOTE = "no longer true"
FORGOTTEN = "forget"  # `via:forget`: retracted because the person asked memory to forget it
FORGOTTEN_NOTE = "forgotten"
SOURCES = "from"  # the marker word naming the messages a captured fact was drawn from
VOICE = "voice"  # `voice:passed_on`: words the person passed on, not their own statement
PASSED_ON = "passed_on"
SPEAKER = "speaker"  # whose words they are, when named (spaces written as `_`)
NOTE_QUOTE = 80  # characters of the replacing fact quoted in a note
Status = Literal["current", "superseded", "retracted", "ended"]
ENDED_NOTE = "told an end"
ENDED_PART = "-1"  # the id suffix of the end a statement told beside a new value
_OWN = ("e", "src", "slot", "status", "by", "until")


@dataclass(frozen=True)
class FactBullet:
    """`source`: where the fact came from when not the user's own `remember`
    (`captured`: drawn from a conversation). `attrs`: the marker's other words.
    `slot`: what the fact is about, when known. `status`: current, superseded
    (`by` the fact that replaced it, `until` the day) or retracted (since `until`)."""

    entry_id: str | None
    day: date
    text: str
    source: str | None = None
    attrs: dict[str, str] = field(default_factory=dict, compare=False)
    slot: str | None = None
    status: Status = "current"
    by: str | None = None
    until: date | None = None

    @property
    def key(self) -> str:
        """What makes two bullets the same fact: the text, whitespace-folded."""
        return fold(self.text)

    @property
    def current(self) -> bool:
        return self.status == "current"

    @property
    def sources(self) -> tuple[int, ...]:
        """The logged messages this fact was drawn from (captured facts only)."""
        return decode_sources(self.attrs.get(SOURCES))

    def superseded_by(self, newer: FactBullet) -> FactBullet:
        """This fact replaced by `newer` from `newer`'s day on (never before this
        fact's own day: a backdated arrival is history from the day it was true)."""
        return replace(self, status="superseded", by=newer.entry_id, until=max(newer.day, self.day))

    def retracted(self, on: date, by: str | None = None) -> FactBullet:
        return replace(self, status="retracted", by=by, until=max(on, self.day))

    def ended(self, entry_id: str | None = None, text: str | None = None) -> FactBullet:
        """These words (or `text` of them, under `entry_id`) as the record of an
        end they told: history from their own day."""
        return replace(
            self,
            entry_id=entry_id or self.entry_id,
            text=text if text is not None else self.text,
            slot=None,
            status="ended",
            by=None,
            until=self.day,
        )

    def restored(self) -> FactBullet:
        return replace(self, status="current", by=None, until=None)


def fold(text: str) -> str:
    return " ".join(text.split())


def parse_bullet_line(line: str) -> tuple[date, str, dict[str, str]] | None:
    """(day, text, marker words) of a bullet's first line, or None when the line
    is not one: `- [YYYY-MM-DD] text`, optionally ending in a marker."""
    if not line.startswith("- [") or line[13:15] != "] ":
        return None
    try:
        day = date.fromisoformat(line[3:13])
    except ValueError:
        return None
    body, marker = split_marker(line[15:])
    return day, body, marker


def split_marker(text: str) -> tuple[str, dict[str, str]]:
    """(the text, the marker's words) of a line that may end in a marker;
    `{"e": id, ...}`, or {} when it has none (or one that does not parse)."""
    if not text.endswith(MARK_CLOSE):
        return text, {}
    at = text.rfind(MARK_OPEN)
    if at < 0:
        return text, {}
    words = text[at + len(MARK_OPEN) - 2 : -len(MARK_CLOSE)].split(" ")
    marker: dict[str, str] = {}
    for word in words:
        key, colon, value = word.partition(":")
        if not colon or not key or key in marker:
            return text, {}
        marker[key] = value
    if not is_entry_id(marker.get("e", "")):
        return text, {}
    return text[:at], marker


def statement_id(fact_id: str) -> str:
    """The statement a fact was filed from: its own id, or the id a part of it
    (`ENDED_PART`) was filed under beside it."""
    return fact_id.partition("-")[0]


def is_entry_id(value: str) -> bool:
    base, dash, n = value.partition("-")
    return (
        len(base) == 12
        and all(c in "0123456789abcdef" for c in base)
        and (not dash or (n.isdigit() and len(n) <= 6))
    )


def make_bullet(
    head: tuple[date, str, dict[str, str]], rest: list[str], earlier: bool
) -> FactBullet:
    """The bullet a parsed first line and its continuation lines make. Where it
    stands decides whether it is current, because that is what a person editing
    the page by hand changes: a bullet under `### Earlier` is no longer current
    (superseded, when its marker says nothing more), one above it is current
    whatever its marker says. The marker gives the rest (replaced by what, when)."""
    day, first, marker = head
    attrs = {k: v for k, v in marker.items() if k not in _OWN}
    said = marker.get("status")
    status: Status = "current"
    if earlier:
        status = (
            "retracted" if said == "retracted" else "ended" if said == "ended" else "superseded"
        )
    if said or earlier:
        first = _without_note(first)
    gone = status != "current"
    by = marker.get("by", "")
    return FactBullet(
        marker.get("e"),
        day,
        restored("\n".join([first, *rest])),
        marker.get("src"),
        attrs,
        slot=marker.get("slot") or None,
        status=status,
        by=by if gone and is_entry_id(by) else None,
        until=_day(marker.get("until")) if gone else None,
    )


def _without_note(first: str) -> str:
    at = first.rfind(NOTE_OPEN)
    return first[:at] if at >= 0 and first.endswith(NOTE_CLOSE) else first


def _day(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def format_bullet(bullet: FactBullet, replaced_by: str | None = None) -> str:
    """The bullet's lines; a fact no longer current gets its visible note, quoting
    `replaced_by` (the replacing fact's text) when known."""
    first, *rest = inert(bullet.text).split("\n")
    words = [f"e:{bullet.entry_id}"] if bullet.entry_id else []
    if bullet.entry_id:
        words += [f"src:{bullet.source}"] if bullet.source else []
        words += [f"slot:{bullet.slot}"] if bullet.slot else []
        if not bullet.current:
            words.append(f"status:{bullet.status}")
            words += [f"by:{bullet.by}"] if bullet.by else []
            words += [f"until:{bullet.until.isoformat()}"] if bullet.until else []
        words += [f"{k}:{v}" for k, v in bullet.attrs.items()]
    mark = f" <!-- {' '.join(words)}{MARK_CLOSE}" if words else ""
    note = "" if bullet.current else _note(bullet, replaced_by)
    head = f"- [{bullet.day.isoformat()}] {first}{note}{mark}"
    return "\n".join([head, *(INDENT + r for r in rest)])


def _note(bullet: FactBullet, replaced_by: str | None) -> str:
    until = bullet.until.isoformat() if bullet.until else "later"
    if bullet.status == "ended":
        return f"{NOTE_OPEN}{until}; {ENDED_NOTE}{NOTE_CLOSE}"
    if bullet.status == "retracted":
        said = FORGOTTEN_NOTE if bullet.attrs.get("via") == FORGOTTEN else RETRACTED_NOTE
        return f"{NOTE_OPEN}{until}; {said}{NOTE_CLOSE}"
    if not replaced_by:
        return f"{NOTE_OPEN}{until}{NOTE_CLOSE}"
    quote = fold(inert(replaced_by))
    if len(quote) > NOTE_QUOTE:
        quote = quote[:NOTE_QUOTE].rsplit(" ", 1)[0] + "…"
    return f"{NOTE_OPEN}{until}; replaced by: {quote}{NOTE_CLOSE}"


def voice_marks(voice: str, speaker: str | None) -> dict[str, str]:
    """The marker words of a fact whose words are someone else's: `voice:passed_on`
    and, when named, `speaker:` (nothing for the person's own words)."""
    if voice != PASSED_ON:
        return {}
    marks = {VOICE: PASSED_ON}
    name = "_".join(speaker.split()) if speaker else ""
    if name and all(c.isalnum() or c in "_-'’." for c in name):
        marks[SPEAKER] = name
    return marks


def voice_note(bullet: FactBullet) -> str:
    """How a passed-on fact reads on the card and in the index: whose words."""
    if bullet.attrs.get(VOICE) != PASSED_ON:
        return ""
    speaker = bullet.attrs.get(SPEAKER, "").replace("_", " ")
    if not speaker:
        return "(passed on, not the person's own words) "
    return f"({speaker}'s words, passed on) "


def reader_line(bullet: FactBullet) -> str:
    """A bullet as the index and the card show it: the date in words ("27 June
    2023"), so a question about June meets it by word as well as by meaning (the
    file keeps the ISO date), and no entry id; a fact no longer current reads
    "was: … (until …)" or "no longer true since …: …"."""
    first, *rest = bullet.text.split("\n")
    origin = CAPTURED_NOTE if bullet.source == CAPTURED else ""
    lead = f"- [{in_words(bullet.day)}] {origin}{voice_note(bullet)}"
    if bullet.status == "superseded":
        until = f" (until {in_words(bullet.until)})" if bullet.until else ""
        lead, first = f"{lead}was: ", f"{first}{until}"
    elif bullet.status == "retracted":
        since = f" since {in_words(bullet.until)}" if bullet.until else ""
        lead = f"{lead}{RETRACTED_NOTE}{since}: "
    elif bullet.status == "ended":
        lead = f"{lead}ended: "
    return "\n".join([lead + first, *(INDENT + line for line in rest)])


def in_words(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"
