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
markers are HTML comments, invisible in rendered markdown; `strip_markers`
removes them before a page is chunked, embedded or excerpted, so neither BM25
nor a card ever sees an entry id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

START = "<!-- memory:facts -->"
END = "<!-- /memory:facts -->"
HEADING = "## Facts"
INDENT = "  "
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_ID = r"[0-9a-f]{12}(?:-\d+)?"
_MARK = re.compile(rf" ?<!-- e:({_ID}) -->")
_BULLET = re.compile(rf"^- \[(\d{{4}}-\d{{2}}-\d{{2}})\] (.*?)(?: <!-- e:({_ID}) -->)?$")


@dataclass(frozen=True)
class FactBullet:
    entry_id: str | None
    day: date
    text: str

    @property
    def key(self) -> str:
        """What makes two bullets the same fact: the text, whitespace-folded."""
        return fold(self.text)


def fold(text: str) -> str:
    return " ".join(text.split())


def filed_ids(text: str) -> tuple[str, ...]:
    """The entry ids of every filed bullet in a page's text, in order."""
    return tuple(m.group(1) for m in _MARK.finditer(_section(text)))


def fact_bullets(text: str) -> list[FactBullet]:
    """The bullets of the managed section (an unmarked line continues the one above)."""
    bullets: list[FactBullet] = []
    lines: list[str] = []
    head: re.Match[str] | None = None
    for line in _section(text).split("\n"):
        match = _BULLET.match(line)
        if match:
            if head is not None:
                bullets.append(_bullet(head, lines))
            head, lines = match, []
        elif head is not None and line.startswith(INDENT):
            lines.append(line[len(INDENT) :])
    if head is not None:
        bullets.append(_bullet(head, lines))
    return bullets


def _bullet(head: re.Match[str], rest: list[str]) -> FactBullet:
    return FactBullet(
        head.group(3), date.fromisoformat(head.group(1)), "\n".join([head.group(2), *rest])
    )


def format_bullet(bullet: FactBullet) -> str:
    first, *rest = bullet.text.split("\n")
    mark = f" <!-- e:{bullet.entry_id} -->" if bullet.entry_id else ""
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
    return "\n".join([f"- [{day}] {first}", *(INDENT + line for line in rest)])


def strip_markers(text: str) -> str:
    """The page as a reader should see it: no entry ids, no marker lines."""
    if "<!-- " not in text:
        return text
    kept = [line for line in text.split("\n") if line.strip() not in (START, END)]
    return _MARK.sub("", "\n".join(kept))


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
