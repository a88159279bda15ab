"""Owns the managed fact section of a concept page: the part consolidation writes.

A page may hold one section between two marker lines; everything outside it
is the author's and is never rewritten:

    <!-- memory:facts -->
    ## Facts
    - [2024-06-02] I moved to Manchester. <!-- e:3f2a9c1b7d4e slot:home -->
    - [2024-05-09] a fact of several lines <!-- e:0a1b2c3d4e5f -->
      its further lines indented by two spaces
    ### Earlier
    - [2024-03-01] I live in Leeds. _(until 2024-06-02; replaced by: I moved to
      Manchester.)_ <!-- e:9c8b7a6d5e4f slot:home status:superseded … -->
    Related: [[people/anika]], [[acme]]
    <!-- /memory:facts -->

Current facts come first; facts no longer true stand under `### Earlier`,
each saying until when and what replaced it (`facts.py` owns a bullet). The
`Related:` line holds the authored links of the facts (the people, places and
projects they name), read like any other `[[wikilink]]` of the page. An edit
rewrites only the bullets it changes: a new fact goes after the last current
one, a fact no longer current moves under `### Earlier`, and every other line
of the section stays as its author left it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date

from substrate.pages.facts import (
    INDENT,
    MARK,
    FactBullet,
    format_bullet,
    make_bullet,
    parse_bullet_line,
    reader_line,
)

START = "<!-- memory:facts -->"
END = "<!-- /memory:facts -->"
HEADING = "## Facts"
EARLIER = "### Earlier"
RELATED = "Related: "
CHAIN_DEPTH = 8  # replaced facts shown under a current one, at most this deep


@dataclass(frozen=True)
class FactItem:
    """One current fact as a reader sees it, with the facts it replaced under it
    (or a fact no longer current that nothing on the page replaced): what the
    index chunks and the card excerpts. `current`: it leads with a current fact."""

    text: str
    current: bool
    day: date


def fact_bullets(text: str) -> list[FactBullet]:
    """The bullets of the managed section, in page order (an indented line
    continues the one above)."""
    return [bullet for _, _, bullet in _spans(_section(text).split("\n"))]


def filed_ids(text: str) -> tuple[str, ...]:
    """The entry ids a page accounts for, in order (`ids_of` its bullets)."""
    return ids_of(fact_bullets(text))


def ids_of(bullets: Sequence[FactBullet]) -> tuple[str, ...]:
    """Every bullet's entry id, and the entry that retracted a bullet (it is on
    the page as that bullet's `by`)."""
    out: list[str] = []
    for b in bullets:
        out += [i for i in (b.entry_id, b.by if b.status == "retracted" else None) if i]
    return tuple(out)


def section_links(text: str) -> tuple[str, ...]:
    """The slugs on the section's `Related:` line."""
    for line in _section(text).split("\n"):
        if line.startswith(RELATED):
            return _related(line)
    return ()


def _related(line: str) -> tuple[str, ...]:
    out = []
    for part in line[len(RELATED) :].split(","):
        part = part.strip()
        if part.startswith("[[") and part.endswith("]]") and len(part) > 4:
            out.append(part[2:-2].split("|", 1)[0].strip())
    return tuple(s for s in dict.fromkeys(out) if s)


def _spans(lines: list[str]) -> list[tuple[int, int, FactBullet]]:
    """(first line, end line, bullet) of every bullet among the section's lines."""
    out: list[tuple[int, int, FactBullet]] = []
    earlier = False
    head: tuple[int, tuple[date, str, dict[str, str]], bool] | None = None
    rest: list[str] = []

    def close(end: int) -> None:
        if head is not None:
            out.append((head[0], end, make_bullet(head[1], rest, head[2])))

    for i, line in enumerate(lines):
        parsed = parse_bullet_line(line)
        if parsed is not None:
            close(i)
            head, rest = (i, parsed, earlier), []
        elif head is not None and line.startswith(INDENT):
            rest.append(line[len(INDENT) :])
        else:
            close(i)
            head, rest = None, []
            earlier = earlier or line.strip() == EARLIER
    close(len(lines))
    return out


def with_facts(
    text: str,
    added: Sequence[FactBullet] = (),
    changed: Sequence[FactBullet] = (),
    links: Sequence[str] = (),
    removed: Collection[str] = (),
) -> str:
    """`text` with `added` after its current facts, each bullet of `changed`
    (matched by entry id) rewritten where it stands, or moved under `### Earlier`
    when it is no longer current, the bullets of `removed` (entry ids) taken out
    whole (a forget: the page keeps no trace of them), and `links` joined to its
    `Related:` line (the section is made at the end of the page when it has
    none); every other line stays as it was."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        section = _edit([START, HEADING, END], added, changed, links)
        if section == "\n".join([START, HEADING, END]):
            return text
        lead = text.rstrip("\n")
        return f"{lead}\n\n{section}\n" if lead else f"{section}\n"
    lines = text[start : end + len(END)].split("\n")
    if removed:
        lines = _without(lines, set(removed))
    return text[:start] + _edit(lines, added, changed, links) + text[end + len(END) :]


def _without(lines: list[str], removed: set[str]) -> list[str]:
    """The section's lines without the bullets of these entry ids (and without
    an `### Earlier` heading left with nothing under it)."""
    out = list(lines)
    for s, e, b in reversed(_spans(lines)):
        if b.entry_id in removed:
            del out[s:e]
    earlier = next((i for i, line in enumerate(out) if line.strip() == EARLIER), None)
    if earlier is not None and not any(b for _, _, b in _spans(out[earlier:])):
        del out[earlier]
    return out


def _edit(
    lines: list[str],
    added: Sequence[FactBullet],
    changed: Sequence[FactBullet],
    links: Sequence[str],
) -> str:
    spans = _spans(lines)
    on_page = [b for _, _, b in spans]
    texts = {b.entry_id: b.text for b in [*on_page, *added, *changed] if b.entry_id is not None}
    by_id = {b.entry_id: b for b in changed if b.entry_id}
    out = list(lines)
    moved: list[FactBullet] = []
    for s, e, b in reversed(spans):  # from the end, so earlier indices hold
        new = by_id.get(b.entry_id) if b.entry_id else None
        if new is None:
            continue
        if new.current == b.current:
            out[s:e] = format_bullet(new, _replacer(new, texts)).split("\n")
        else:
            del out[s:e]
            moved.append(new)
    ids = {b.entry_id for b in on_page}
    later = [*added, *(b for b in changed if b.entry_id not in ids), *reversed(moved)]
    now = [format_bullet(b) for b in later if b.current]
    past = [format_bullet(b, _replacer(b, texts)) for b in later if not b.current]
    return "\n".join(_place(out, now, past, links))


def _replacer(bullet: FactBullet, texts: dict[str, str]) -> str | None:
    return texts.get(bullet.by) if bullet.by and bullet.status == "superseded" else None


def _place(lines: list[str], now: list[str], past: list[str], links: Sequence[str]) -> list[str]:
    """`lines` (the section, END last) with `now` after the last current fact,
    `past` at the end of `### Earlier` (made when missing) and `links` merged
    into the `Related:` line (kept last before END)."""
    related = next((i for i, line in enumerate(lines) if line.startswith(RELATED)), None)
    merged = [*(_related(lines[related]) if related is not None else ()), *links]
    merged = list(dict.fromkeys(merged))
    if related is not None:
        blank = related > 0 and not lines[related - 1].strip()
        del lines[related - blank : related + 1]
    close = len(lines) - 1
    earlier = next((i for i, line in enumerate(lines) if line.strip() == EARLIER), None)
    if past:
        if earlier is None:
            at = _after_content(lines, close)
            lines[at:at] = [EARLIER]
            earlier = at
            close += 1
        at = _after_content(lines, close)
        lines[at:at] = [line for block in past for line in block.split("\n")]
    if past:
        lines = _earlier_by_date(lines)
    if now:
        earlier = next((i for i, line in enumerate(lines) if line.strip() == EARLIER), None)
        at = _after_content(lines, earlier if earlier is not None else len(lines) - 1)
        lines[at:at] = [line for block in now for line in block.split("\n")]
    if merged:
        line = RELATED + ", ".join(f"[[{slug}]]" for slug in merged)
        lines[-1:-1] = ["", line]  # a paragraph of its own, not the last bullet's
    return lines


def _earlier_by_date(lines: list[str]) -> list[str]:
    """The bullets under `### Earlier` newest first by the day each was said (as
    the web tab and `memory facts` list them), not in the order they were moved
    there; left as they are when other lines stand between them."""
    heading = next((i for i, line in enumerate(lines) if line.strip() == EARLIER), None)
    if heading is None:
        return lines
    spans = [(s, e, b) for s, e, b in _spans(lines) if s > heading]
    if len(spans) < 2 or any(spans[n][0] != spans[n - 1][1] for n in range(1, len(spans))):
        return lines
    ordered = sorted(spans, key=lambda span: span[2].day, reverse=True)
    block = [line for s, e, _ in ordered for line in lines[s:e]]
    return lines[: spans[0][0]] + block + lines[spans[-1][1] :]


def _after_content(lines: list[str], limit: int) -> int:
    """Just after the last non-blank line before `limit` (never before the
    section's opening lines)."""
    at = limit
    while at > 2 and not lines[at - 1].strip():
        at -= 1
    return at


def split_facts(text: str) -> tuple[str, list[FactItem]]:
    """(the page without its managed section, each fact as a reader sees it:
    the current fact first, the facts it replaced under it as "was … (until …)"
    lines, no id): the index chunks the two apart, and a chunk that holds an
    old value holds the value that replaced it too."""
    start, end = text.find(START), text.find(END)
    if start < 0:
        return strip_markers(text), []
    stop = end + len(END) if end > start else len(text)
    prose = strip_markers(text[:start] + text[stop:])
    return prose, fact_chains(fact_bullets(text))


def fact_chains(bullets: list[FactBullet]) -> list[FactItem]:
    """Each current fact followed by those it replaced (newest first, indented),
    then the superseded facts that nothing current on the page replaced. A
    retracted fact shows only under the fact that retracted it: one retracted
    on its own (forgotten) is no longer shown at all."""
    replaced: dict[str, list[FactBullet]] = {}
    for b in bullets:
        if not b.current and b.by:
            replaced.setdefault(b.by, []).append(b)
    placed: set[int] = set()

    def chain(b: FactBullet, depth: int) -> list[str]:
        placed.add(id(b))
        lines = [INDENT * depth + line for line in reader_line(b).split("\n")]
        if depth < CHAIN_DEPTH and b.entry_id:
            for old in sorted(replaced.get(b.entry_id, []), key=lambda o: o.day, reverse=True):
                if id(old) not in placed:
                    lines += chain(old, depth + 1)
        return lines

    out = [FactItem("\n".join(chain(b, 0)), True, b.day) for b in bullets if b.current]
    out += [
        FactItem("\n".join(chain(b, 0)), False, b.day)
        for b in bullets
        if id(b) not in placed and b.status in ("superseded", "ended")
    ]
    return out


def newest_current(bullets: list[FactBullet]) -> date | None:
    """The day of the newest current fact: what a page is as of."""
    days = [b.day for b in bullets if b.current]
    return max(days) if days else None


def strip_markers(text: str) -> str:
    """The page as a reader should see it: no entry ids, no marker lines."""
    if "<!-- " not in text:
        return text
    kept = [line for line in text.split("\n") if line.strip() not in (START, END)]
    return str(MARK.sub("", "\n".join(kept)))


def _section(text: str) -> str:
    start, end = text.find(START), text.find(END)
    if start < 0:
        return ""
    return text[start : end if end > start else len(text)]


def new_page_text(
    title: str,
    bullets: Sequence[FactBullet],
    links: Sequence[str] = (),
    origin: date | None = None,
    *,
    aliases: Sequence[str] = (),
    related: Sequence[str] = (),
) -> str:
    """A page made by consolidation: its title (and `aliases`, the names it is
    known by), provenance, `links` (the page it continues), its facts (current
    and no longer current alike) and the `related` pages they name."""
    meta = [f"title: {_quoted(title)}"]
    if aliases:
        meta.append("aliases: [" + ", ".join(_quoted(a) for a in aliases) + "]")
    if links:
        meta.append("links: [" + ", ".join(_quoted(s) for s in links) + "]")
    if origin is not None:
        meta.append(f"origin_date: {origin.isoformat()}")
    head = "---\n" + "\n".join(meta) + f"\n---\n# {title}\n"
    now = [b for b in bullets if b.current]
    return with_facts(head, now, [b for b in bullets if not b.current], related)


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)
