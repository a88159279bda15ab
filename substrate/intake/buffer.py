"""Owns the intake buffer format (`memory/buffer.md`, `memory/archive/*.md`).

An entry opens with a timestamped bullet at column 0, minute precision, UTC:

    - [2026-11-29 14:03] first line of the fact [[some-slug]]
      further lines indented by two spaces

Every further line of the text (blank ones too) is written indented, so fact
text can never imitate an entry start: the column-0 bullet is the only
delimiter. A fact that is not the user's own `remember` ends its first line
with its provenance, ` <!-- src:captured -->` (drawn from a conversation), which
travels with it onto the page and the card; a captured fact also names the
messages it was drawn from (` <!-- src:captured from:1796…,1796… -->`, its
lineage: forgetting those messages forgets it). A fact the scanner held for review
(a person's own words that a judgement rule or the learned detector read as
an attack) carries ` <!-- held:RULE -->` after it: consolidation leaves it in
the buffer until the operator releases it (` <!-- released -->`). The text
itself never holds a mark: its comment openers are stored escaped
(`safety.markers`), so "… <!-- released -->" typed by anyone stays words.
`parse_buffer` is the one matcher
every reader uses (consolidation cutoff, the `<info>` buffer cap, pending
graph nodes).

Legacy tolerance: in files written before indentation existed, an
unindented line that is not entry-shaped continues the current entry, and
unindented blank lines at the end of an entry are separators, not text.
Lines before the first entry (a `# Buffer` heading) are preamble.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from substrate.errors import InvalidInputError
from substrate.lineage import decode_sources, encode_sources
from substrate.pages.page_file import wikilinks
from substrate.safety.markers import inert, restored
from substrate.safety.patterns import DOTALL, anchored

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
INDENT = "  "
_ENTRY_START = anchored(r"- \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] ?(.*)", DOTALL)


MARK_OPEN = " <!-- "
SOURCE_OPEN = f"{MARK_OPEN}src:"
SOURCE_CLOSE = " -->"
FROM = " from:"
HELD = "held:"
RELEASED = "released"
_RULE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_.")


@dataclass(frozen=True)
class BufferEntry:
    """`source`: None for the user's own words, else where the fact came from.
    `review`: `held:RULE` while the scanner holds it for review, `released` once
    the operator let it through, else None. `why`: the scanner's detail when the
    entry was just held (not stored; a reader of the file re-asks the scanner).
    `sources`: the logged messages a captured fact was drawn from (its lineage)."""

    id: str
    at: datetime
    text: str
    source: str | None = None
    review: str | None = None
    why: str | None = field(default=None, compare=False)
    sources: tuple[int, ...] = field(default=(), compare=False)

    @property
    def hints(self) -> list[str]:
        return list(dict.fromkeys(wikilinks(self.text)))

    @property
    def held(self) -> str | None:
        """The rule that holds this entry for review, or None."""
        return self.review[len(HELD) :] if self.review and self.review.startswith(HELD) else None

    @property
    def released(self) -> bool:
        return self.review == RELEASED


def parse_at(text: str, field: str = "at", now: datetime | None = None) -> datetime:
    """An ISO 8601 date or time for backdating an entry (an offset-less one is
    UTC), within `plausible_moment`'s range."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInputError(
            f"{field}: {text[:80]!r} is not an ISO 8601 date or time (e.g. 2023-05-08T13:56)"
        ) from None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return plausible_moment(moment, field, now)


def plausible_moment(moment: datetime, field: str, now: datetime | None = None) -> datetime:
    """`moment` when it lies between 1900 and a day from now. A date from the
    future would freeze a slot (every later true fact filed as history), and one
    before 1900 is a typo or an attack, never a memory."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    latest = (now or datetime.now(UTC)) + timedelta(days=1)
    if not EARLIEST <= moment <= latest:
        raise InvalidInputError(
            f"{field}: {moment.isoformat()} is outside {EARLIEST.date()} … "
            f"{latest.date()} (a day from now)"
        )
    return moment


def format_timestamp(moment: datetime) -> str:
    """`YYYY-MM-DD HH:MM` with a four-digit year whatever the platform's
    strftime does with small years, so a reader never fuses two entries."""
    utc = moment.astimezone(UTC)
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d} {utc.hour:02d}:{utc.minute:02d}"


def format_entry(
    at: datetime,
    text: str,
    source: str | None = None,
    review: str | None = None,
    sources: tuple[int, ...] = (),
) -> str:
    """One entry as it is stored, ending in a newline; round-trips any text
    (its comment openers escaped, `safety.markers`, so no text reads as a mark)."""
    first, *rest = inert(text).split("\n")
    named = encode_sources(sources) if source else ""
    lineage = f"{FROM}{named}" if named else ""
    mark = f"{SOURCE_OPEN}{source}{lineage}{SOURCE_CLOSE}" if source else ""
    if review:
        mark += f"{MARK_OPEN}{review}{SOURCE_CLOSE}"
    lines = [f"- [{format_timestamp(at)}] {first}{mark}"]
    lines.extend(INDENT + line for line in rest)
    return "\n".join(lines) + "\n"


def with_hints(text: str, hints: list[str]) -> str:
    """Append `[[slug]]` for each hint the text does not already link."""
    present = set(wikilinks(text))
    extra = [h for h in dict.fromkeys(hints) if h not in present]
    return " ".join([text, *(f"[[{h}]]" for h in extra)]) if extra else text


def buffer_preamble(content: str) -> str:
    """What precedes the first entry (the `# Buffer` heading), kept by rewrites."""
    lines = content.split("\n")
    for i, line in enumerate(lines):
        if _entry_start(line) is not None:
            return "\n".join(lines[:i])
    return content.rstrip("\n") + "\n" if content.strip() else ""


def format_buffer(preamble: str, entries: list[BufferEntry]) -> str:
    """A whole buffer file: its preamble, then each entry as `format_entry` writes it."""
    head = preamble.rstrip("\n")
    body = "".join(format_entry(e.at, e.text, e.source, e.review, e.sources) for e in entries)
    if not head:
        return body
    return head + "\n\n" + body if body else head + "\n"


def _entry_start(line: str) -> tuple[datetime, str] | None:
    if not line.startswith("- ["):  # most lines: one comparison, no pattern
        return None
    match = _ENTRY_START.match(line)
    if match is None:
        return None
    stamp = match.group(1)  # YYYY-MM-DD HH:MM, read by slices (strptime is 20x slower)
    try:
        at = datetime(
            int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10]),
            int(stamp[11:13]), int(stamp[14:16]), tzinfo=UTC,
        )  # fmt: skip
    except ValueError:
        return None
    return at, match.group(2)


def parse_buffer(content: str) -> list[BufferEntry]:
    """Every entry in a buffer or archive file, in file order."""
    raw: list[tuple[datetime, tuple[str | None, tuple[int, ...]], str | None, list[Line]]] = []
    for line in content.split("\n"):
        start = _entry_start(line)
        if start is not None:
            first, review = _review(start[1])
            first, source, sources = _source(first)
            raw.append((start[0], (source, sources), review, [(first, True)]))
        elif raw:
            indented = line.startswith(INDENT)
            raw[-1][3].append((line[len(INDENT) :] if indented else line, indented))
    return _with_ids([(at, restored(_entry_text(lines)), src, rev) for at, src, rev, lines in raw])


Line = tuple[str, bool]  # a line of an entry's text, and whether it was indented


def _review(first: str) -> tuple[str, str | None]:
    """(the first line's text, its review mark) from a line that may end in one."""
    if not first.endswith(SOURCE_CLOSE):
        return first, None
    at = first.rfind(MARK_OPEN)
    mark = first[at + len(MARK_OPEN) : -len(SOURCE_CLOSE)] if at >= 0 else ""
    rule = mark[len(HELD) :] if mark.startswith(HELD) else None
    if mark == RELEASED or (rule and set(rule) <= _RULE_CHARS):
        return first[:at], mark
    return first, None


def _source(first: str) -> tuple[str, str | None, tuple[int, ...]]:
    """(the first line's text, its provenance, the messages it was drawn from)
    from a line that may end in a provenance mark."""
    if not first.endswith(SOURCE_CLOSE):
        return first, None, ()
    at = first.rfind(SOURCE_OPEN)
    mark = first[at + len(SOURCE_OPEN) : -len(SOURCE_CLOSE)] if at >= 0 else ""
    source, _, named = mark.partition(FROM)
    if not source or not source.isalpha() or (named and not set(named) <= _ID_CHARS):
        return first, None, ()
    return first[:at], source, decode_sources(named)


_ID_CHARS = frozenset("0123456789,")


def _entry_text(lines: list[tuple[str, bool]]) -> str:
    # Unindented blank lines closing an entry are separators: the writer
    # stores blank lines of the text indented, so these were never text.
    while len(lines) > 1 and lines[-1] == ("", False):
        lines.pop()
    return "\n".join(text for text, _ in lines)


def _with_ids(
    items: list[tuple[datetime, str, tuple[str | None, tuple[int, ...]], str | None]],
) -> list[BufferEntry]:
    seen: dict[str, int] = {}
    out: list[BufferEntry] = []
    for at, text, (source, sources), review in items:
        base = entry_id(at, text)
        seen[base] = seen.get(base, 0) + 1
        eid = base if seen[base] == 1 else f"{base}-{seen[base]}"
        out.append(BufferEntry(eid, at, text, source, review, sources=sources))
    return out


def next_entry(
    entries: list[BufferEntry],
    at: datetime,
    text: str,
    source: str | None,
    sources: tuple[int, ...] = (),
) -> BufferEntry:
    """The entry `(at, text)` becomes when appended after `entries` (its id counts
    the identical ones before it), without parsing the file again."""
    base = entry_id(at, text)
    same = sum(1 for e in entries if e.id == base or e.id.startswith(base + "-"))
    eid = base if same == 0 else f"{base}-{same + 1}"
    return BufferEntry(eid, at, text, source, sources=decode_sources(encode_sources(sources)))


def entry_id(at: datetime, text: str) -> str:
    """Stable id from the entry itself, so every reader derives the same one."""
    digest = hashlib.sha256(f"{format_timestamp(at)}\n{text}".encode()).hexdigest()
    return digest[:12]
