"""Owns the managed fact section of a concept page: the part consolidation writes.

A page may hold one section between two marker lines; everything outside it
is the author's and is never rewritten:

    <!-- memory:facts -->
    ## Facts
    - [2023-05-08] Caroline went to a support group. <!-- e:3f2a9c1b7d4e -->
    - [2023-05-09] a fact of several lines <!-- e:0a1b2c3d4e5f -->
      its further lines indented by two spaces
    <!-- /memory:facts -->

Each bullet carries the date of the fact (the buffer entry's own date) and the
id of the entry it was filed from, so a rerun sees what is already filed. The
id sits in a marker, an HTML comment invisible in rendered markdown, which may
carry more about the fact as `key:value` words: `src:captured` says the fact
was drawn from a conversation rather than remembered by the user. Markers the
reader does not know are kept as written. `strip_markers` removes markers
before a page is chunked, embedded or excerpted, so neither BM25 nor a card
ever sees an entry id. Parsing is a pass over each line (no pattern reads a
bullet), so a page of any length costs its length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from substrate.safety.patterns import linear

START = "<!-- memory:facts -->"
END = "<!-- /memory:facts -->"
HEADING = "## Facts"
INDENT = "  "
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_ID = r"[0-9a-f]{12}(?:-[0-9]{1,6})?"
_MARK = linear(rf" ?<!-- e:{_ID}(?: [a-z_]+:[^ >]*)* -->")
MARK_OPEN = " <!-- e:"
MARK_CLOSE = " -->"
CAPTURED = "captured"
# How a captured fact reads on the card and in the index: it was drawn from a
# conversation, not stated to memory by the user.
CAPTURED_NOTE = "(captured from a conversation) "


@dataclass(frozen=True)
class FactBullet:
    """`source`: where the fact came from when not the user's own `remember`
    (`captured`: drawn from a conversation). `attrs`: the marker's other words."""

    entry_id: str | None
    day: date
    text: str
    source: str | None = None
    attrs: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> str:
        """What makes two bullets the same fact: the text, whitespace-folded."""
        return fold(self.text)


def fold(text: str) -> str:
    return " ".join(text.split())


def filed_ids(text: str) -> tuple[str, ...]:
    """The entry ids of every filed bullet in a page's text, in order."""
    return tuple(b.entry_id for b in fact_bullets(text) if b.entry_id)


def fact_bullets(text: str) -> list[FactBullet]:
    """The bullets of the managed section (an indented line continues the one above)."""
    bullets: list[FactBullet] = []
    head: tuple[date, str, dict[str, str]] | None = None
    rest: list[str] = []
    for line in _section(text).split("\n"):
        parsed = parse_bullet_line(line)
        if parsed is not None:
            if head is not None:
                bullets.append(_bullet(head, rest))
            head, rest = parsed, []
        elif head is not None and line.startswith(INDENT):
            rest.append(line[len(INDENT) :])
    if head is not None:
        bullets.append(_bullet(head, rest))
    return bullets


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
    if not _is_id(marker.get("e", "")):
        return text, {}
    return text[:at], marker


def _is_id(value: str) -> bool:
    base, dash, n = value.partition("-")
    return (
        len(base) == 12
        and all(c in "0123456789abcdef" for c in base)
        and (not dash or (n.isdigit() and len(n) <= 6))
    )


def _bullet(head: tuple[date, str, dict[str, str]], rest: list[str]) -> FactBullet:
    day, first, marker = head
    attrs = {k: v for k, v in marker.items() if k not in ("e", "src")}
    return FactBullet(marker.get("e"), day, "\n".join([first, *rest]), marker.get("src"), attrs)


def format_bullet(bullet: FactBullet) -> str:
    first, *rest = bullet.text.split("\n")
    words = [f"e:{bullet.entry_id}"] if bullet.entry_id else []
    if bullet.entry_id and bullet.source:
        words.append(f"src:{bullet.source}")
    if bullet.entry_id:
        words += [f"{k}:{v}" for k, v in bullet.attrs.items()]
    mark = f" <!-- {' '.join(words)}{MARK_CLOSE}" if words else ""
    lines = [f"- [{bullet.day.isoformat()}] {first}{mark}", *(INDENT + line for line in rest)]
    return "\n".join(lines)


def with_facts(text: str, bullets: list[FactBullet]) -> str:
    """`text` with `bullets` appended to its managed section (made at the end of
    the page when it has none); every other byte stays as it was."""
    if not bullets:
        return text
    added = "\n".join(format_bullet(b) for b in bullets)
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        lead = text.rstrip("\n")
        section = f"{START}\n{HEADING}\n{added}\n{END}\n"
        return f"{lead}\n\n{section}" if lead else section
    before = text[:end].rstrip("\n")
    return f"{before}\n{added}\n{text[end:]}"


def split_facts(text: str) -> tuple[str, list[str]]:
    """(the page without its managed section, each fact bullet as a reader sees
    it: `- [day] text`, no id): the index chunks the two apart."""
    start, end = text.find(START), text.find(END)
    if start < 0:
        return strip_markers(text), []
    stop = end + len(END) if end > start else len(text)
    prose = strip_markers(text[:start] + text[stop:])
    return prose, [reader_line(b) for b in fact_bullets(text)]


def reader_line(bullet: FactBullet) -> str:
    """A bullet as the index and the card show it: the date in words ("27 June
    2023"), so a question about June meets it by word as well as by meaning (the
    file keeps the ISO date), and no entry id."""
    day = f"{bullet.day.day} {MONTHS[bullet.day.month - 1]} {bullet.day.year}"
    first, *rest = bullet.text.split("\n")
    origin = CAPTURED_NOTE if bullet.source == CAPTURED else ""
    return "\n".join([f"- [{day}] {origin}{first}", *(INDENT + line for line in rest)])


def strip_markers(text: str) -> str:
    """The page as a reader should see it: no entry ids, no marker lines."""
    if "<!-- " not in text:
        return text
    kept = [line for line in text.split("\n") if line.strip() not in (START, END)]
    return str(_MARK.sub("", "\n".join(kept)))


def _section(text: str) -> str:
    start, end = text.find(START), text.find(END)
    if start < 0:
        return ""
    return text[start : end if end > start else len(text)]


def new_page_text(
    title: str, bullets: list[FactBullet], links: tuple[str, ...] = (), origin: date | None = None
) -> str:
    """A page made by consolidation: its title, provenance, and its facts."""
    import json

    meta = [f"title: {json.dumps(title, ensure_ascii=False)}"]
    if links:
        meta.append("links: [" + ", ".join(json.dumps(s, ensure_ascii=False) for s in links) + "]")
    if origin is not None:
        meta.append(f"origin_date: {origin.isoformat()}")
    return with_facts("---\n" + "\n".join(meta) + f"\n---\n# {title}\n", bullets)
