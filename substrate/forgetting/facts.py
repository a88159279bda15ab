"""Erasing facts: out of their pages, the buffer, the daily archive, the trash
and the decision log, in one journaled change with their tombstones.

A forgotten fact leaves no trace in any file: its bullet goes from its page
(not marked: gone), its buffer entry and its archive entry go, a page in the
trash that held it loses it too, and the decision log's rows about it keep
only what names no words (when, which page, which slot). What it did to
other facts is undone where it was its doing: a fact it superseded is
current again unless another fact on its slot stands after it (then that one
is its successor); one it retracted (a cessation) is current again; one a
correction replaced stays replaced, since the correction said the old value
was wrong. A page consolidation made for the fact alone, left with nothing,
goes too, and the `Related:` links other pages kept to it.

`facts` may also be told to repoint: a captured fact whose source messages are
forgotten but which another message still states keeps its place, its
lineage now naming that message.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.log import commit_change, log_path, recover_changes
from substrate.errors import PageParseError
from substrate.forgetting.orders import Order
from substrate.forgetting.scrub import scrub_log
from substrate.intake import BufferEntry, holding_buffer, parse_buffer
from substrate.intake.buffer import buffer_preamble, format_buffer
from substrate.lineage import encode_sources, fingerprint, normalized, tombstone_step
from substrate.pages import (
    FactBullet,
    PageEntry,
    content_hash,
    fact_bullets,
    fresh_pages,
    split_facts,
    split_frontmatter,
    with_facts,
)
from substrate.pages.fact_section import RELATED
from substrate.pages.facts import SOURCES, statement_id
from substrate.safety import (
    FileSnapshot,
    hold_lock,
    journal,
    linear,
    read_text_snapshot,
    unlinked_folder,
)

LOCK_TIMEOUT_S = 60.0
TRASH = "trash"
# Frontmatter keys consolidation writes on a page it makes: a page holding
# nothing else, and no fact, was the forgotten facts' alone.
GENERATED_KEYS = frozenset({"title", "aliases", "links", "origin_date"})


@dataclass
class FactsErased:
    """`erased`: a row per fact taken out (id, page or None, the words, buffer);
    `restored`: facts current again; `pages`: pages rewritten; `removed`: pages
    the forget left empty and took away."""

    erased: list[dict[str, Any]] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    pages: set[str] = field(default_factory=set)
    removed: list[str] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)  # page -> content hash after
    restored_on: dict[str, str] = field(default_factory=dict)  # restored fact -> its page


def erase_facts(
    settings: Settings,
    order: Order,
    facts: Collection[str],
    repoint: Mapping[str, tuple[int, ...]] = {},
) -> FactsErased:
    """Erase `facts` (entry ids) and repoint the captured facts in `repoint`
    (entry id -> the messages that still state it), as `order`. Idempotent: a
    fact already gone is skipped."""
    done = FactsErased()
    ids = set(facts)
    ws = settings.workspace
    with (
        hold_lock(ws.consolidation_lock_path, timeout_s=LOCK_TIMEOUT_S, purpose="forget"),
        holding_buffer(settings),
    ):
        recover_changes(settings)  # a killed forget's own change, rolled forward first
        if not ids and not repoint:
            return done
        entries = fresh_pages(ws)
        ids |= told_parts(entries.values(), ids)
        steps: list[journal.Step] = []
        days: dict[str, str] = {}  # an erased fact's id -> its archive day
        for slug in sorted(_pages_holding(entries, ids | set(repoint))):
            step = _page_step(settings, entries[slug], ids, repoint, done, days)
            steps += [step] if step is not None else []
        steps += _unlinked(settings, entries, done.removed)
        steps += _buffer_step(settings, ids, repoint, done, days)
        steps += _archive_steps(settings, ids, repoint, days)
        steps += _trash_steps(settings, ids, done)
        tombstone = tombstone_step(
            ws, order.id, "facts", order.at, _tombstones(settings, order, done)
        )
        steps += [tombstone] if tombstone is not None else []
        phrases = [order.texts[i] for i in ids if i in order.texts]
        phrases += [str(r["text"]) for r in done.erased]
        names = [*done.removed, *(entries[s].title for s in done.removed if s in entries)]

        def scrubbed(text: str) -> str:
            return scrub_log(text, ids, phrases, names)

        if not steps and not _log_holds_words(settings, scrubbed):
            return done

        told = [  # what history tells of each page changed (no words; its hash, so
            # maintain does not read the change as a hand edit)
            {"at": order.at, "op": "forget", "page": slug, "via": order.via, "sha256": sha}
            for slug, sha in sorted(done.hashes.items())
        ]
        told += [  # a fact current again: the history of it says so
            {"at": order.at, "op": "restored", "id": fact, "page": slug, "via": order.via}
            for fact, slug in sorted(done.restored_on.items())
        ]
        commit_change(settings, steps, told, rewrite_log=scrubbed, present=set(entries))
    return done


def _log_holds_words(settings: Settings, scrubbed: Callable[[str], str]) -> bool:
    """Whether the decision log still holds words `scrubbed` would cut (a forget
    run again over facts gone from every page: an older release's forget row
    kept them)."""
    text, _ = read_text_snapshot(log_path(settings))
    return scrubbed(text) != text


def told_parts(entries: Iterable[PageEntry], ids: Collection[str]) -> set[str]:
    """The facts filed as parts of the statements `ids` (an end told beside a new
    value: the statement's id with `-1`), which go with them."""
    return {f for e in entries for f in e.filed if f not in ids and statement_id(f) in ids}


def _pages_holding(entries: Mapping[str, PageEntry], ids: set[str]) -> list[str]:
    return [slug for slug, entry in entries.items() if ids.intersection(entry.filed)]


def _page_step(
    settings: Settings,
    entry: PageEntry,
    ids: set[str],
    repoint: Mapping[str, tuple[int, ...]],
    done: FactsErased,
    days: dict[str, str],
) -> journal.Step | None:
    slug = entry.slug
    path = settings.workspace.concepts_dir / entry.path
    text, snapshot = read_text_snapshot(path)
    bullets = fact_bullets(text)
    gone = {b.entry_id: b for b in bullets if b.entry_id and b.entry_id in ids}
    changed = released(bullets, gone, ids)
    changed += [
        replace(b, attrs={**b.attrs, SOURCES: encode_sources(repoint[b.entry_id])})
        for b in bullets
        if b.entry_id and b.entry_id in repoint and b.entry_id not in gone
    ]
    if not gone and not changed:
        return None
    new = with_facts(text, changed=changed, removed=set(gone))
    for b in gone.values():
        done.erased.append({"id": b.entry_id, "page": slug, "text": b.text, "buffer": False})
        days[str(b.entry_id)] = b.day.isoformat()
    for b in bullets:  # a forgotten cessation lives on its page only as what it ended
        if b.status == "retracted" and b.by in ids and b.by not in gone:
            done.erased.append({"id": b.by, "page": slug, "text": "", "buffer": False})
    back = [b.entry_id for b in changed if b.current and b.entry_id and b.by is None]
    done.restored += back
    done.restored_on |= {b: slug for b in back}
    if not fact_bullets(new) and generated_only(new):
        done.removed.append(slug)
        return journal.Remove(path, snapshot)
    done.pages.add(slug)
    data = new.encode("utf-8")
    done.hashes[slug] = content_hash(data)
    return journal.Replace(path, data, snapshot)


def released(
    bullets: list[FactBullet], gone: Mapping[str, FactBullet], ids: Collection[str]
) -> list[FactBullet]:
    """What forgetting `ids` (`gone`: their bullets on this page) does to the
    facts they replaced or ended: each is current again, or replaced by the
    newest fact of its slot that still stands after it, or (replaced by a
    correction) stays replaced by no one."""
    out = []
    left = [b for b in bullets if b.entry_id not in gone]
    for b in left:
        if not b.by or b.by not in ids:
            continue
        if b.status == "retracted":
            out.append(b.restored())
            continue
        successor = gone.get(b.by)
        if successor is not None and successor.attrs.get("via") == "correct":
            out.append(replace(b, by=None))
            continue
        standing = [
            c
            for c in left
            if c.current and c.entry_id and b.slot and c.slot == b.slot and c.day >= b.day
        ]
        if standing:
            newest = max(standing, key=lambda c: c.day)
            out.append(replace(b, by=newest.entry_id, until=max(newest.day, b.day)))
        else:
            out.append(b.restored())
    return out


def generated_only(text: str) -> bool:
    """Whether a page holds nothing but what consolidation writes around facts:
    its frontmatter's title, aliases, links and origin date, its title heading."""
    try:
        meta, _ = split_frontmatter(text)
    except PageParseError:
        return False
    if set(meta) - GENERATED_KEYS:
        return False
    prose, _ = split_facts(text)
    _, body = split_frontmatter(prose)
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    lines = [line for line in lines if not line.startswith(RELATED)]
    return all(line.startswith("# ") or line == "## Facts" for line in lines)


def _unlinked(
    settings: Settings, entries: Mapping[str, PageEntry], removed: list[str]
) -> list[journal.Step]:
    """Other pages' `Related:` lines without the pages the forget took away."""
    if not removed:
        return []
    gone = set(removed)
    steps: list[journal.Step] = []
    for slug, entry in sorted(entries.items()):
        if slug in gone or not gone.intersection(entry.link_targets()):
            continue
        path = settings.workspace.concepts_dir / entry.path
        text, snapshot = read_text_snapshot(path)
        lines = text.split("\n")
        new = [_without_links(line, gone) if line.startswith(RELATED) else line for line in lines]
        if new != lines:
            steps.append(journal.Replace(path, "\n".join(new).encode("utf-8"), snapshot))
    return steps


def _without_links(line: str, gone: set[str]) -> str:
    """The line's links but those to `gone`, each whole: a link's label may hold
    a comma ("[[pets/pixel|Pixel, my cat]]"), so links are read as links, not
    as the pieces between commas."""
    links = list(_LINK.finditer(line[len(RELATED) :]))
    kept = [m.group(0) for m in links if m.group(1).strip() not in gone]
    return RELATED + ", ".join(kept) if kept else ""


_LINK = linear(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")


def _buffer_step(
    settings: Settings,
    ids: set[str],
    repoint: Mapping[str, tuple[int, ...]],
    done: FactsErased,
    days: dict[str, str],
) -> list[journal.Step]:
    """The buffer without the erased entries (never archived first: the
    archive loses them too) and with the repointed ones' new lineage."""
    path = settings.workspace.buffer_path
    text, snapshot = read_text_snapshot(path)
    entries = parse_buffer(text)
    kept: list[BufferEntry] = []
    changed = False
    for e in entries:
        if e.id in ids:
            done.erased.append({"id": e.id, "page": None, "text": e.text, "buffer": True})
            days[e.id] = e.at.date().isoformat()
            changed = True
        elif e.id in repoint:
            kept.append(replace(e, sources=repoint[e.id]))
            changed = True
        else:
            kept.append(e)
    if not changed:
        return []
    data = format_buffer(buffer_preamble(text), kept).encode("utf-8")
    return [journal.Replace(path, data, snapshot)]


def _archive_steps(
    settings: Settings,
    ids: set[str],
    repoint: Mapping[str, tuple[int, ...]],
    days: Mapping[str, str],
) -> list[journal.Step]:
    """Each day's archive without the erased entries (matched by id: the minute
    and the words); a fact whose day is unknown is looked for in every day."""
    folder = settings.workspace.archive_dir
    known = not repoint and ids <= set(days)
    names = [f"{d}.md" for d in sorted(set(days.values()))] if known else _all_days(folder)
    bases = {i.split("-", 1)[0] for i in ids}
    steps: list[journal.Step] = []
    for name in names:
        path = folder / name
        text, snapshot = read_text_snapshot(path)
        if not text:
            continue
        entries = parse_buffer(text)
        kept = [e for e in entries if e.id.split("-", 1)[0] not in bases]
        kept = [replace(e, sources=repoint[e.id]) if e.id in repoint else e for e in kept]
        if kept == entries and not any(e.id in repoint for e in entries):
            continue
        data = format_buffer(buffer_preamble(text), kept).encode("utf-8")
        if data != text.encode("utf-8"):
            steps.append(journal.Replace(path, data, snapshot))
    return steps


def _all_days(folder: Path) -> list[str]:
    try:
        return sorted(e.name for e in os.scandir(folder) if e.name.endswith(".md"))
    except FileNotFoundError:
        return []


def trash_pages(settings: Settings) -> list[Path]:
    """Every page in the trash (links are never followed)."""
    memory = settings.workspace.memory_dir
    root = memory / TRASH
    if not root.is_dir():
        return []
    unlinked_folder(memory, root)
    return [p for p in sorted(root.rglob("*.md")) if p.is_file() and not p.is_symlink()]


def _trash_steps(settings: Settings, ids: set[str], done: FactsErased) -> list[journal.Step]:
    """Pages in the trash without the erased facts (a trash copy emptied of
    everything is removed)."""
    if not ids:
        return []
    steps: list[journal.Step] = []
    erased = {str(r["id"]) for r in done.erased}
    for path in trash_pages(settings):
        text, snapshot = read_text_snapshot(path)
        bullets = fact_bullets(text)
        gone = {b.entry_id: b for b in bullets if b.entry_id and b.entry_id in ids}
        if not gone:
            continue
        for fact, b in gone.items():
            if fact not in erased:
                erased.add(fact)
                done.erased.append({"id": fact, "page": None, "text": b.text, "buffer": False})
        new = with_facts(text, changed=released(bullets, gone, ids), removed=set(gone))
        steps.append(_replaced_or_removed(path, new, snapshot))
    return steps


def _replaced_or_removed(path: Path, text: str, snapshot: FileSnapshot) -> journal.Step:
    if not fact_bullets(text) and generated_only(text):
        return journal.Remove(path, snapshot)
    return journal.Replace(path, text.encode("utf-8"), snapshot)


def _tombstones(settings: Settings, order: Order, done: FactsErased) -> Iterable[dict[str, Any]]:
    ws = settings.workspace
    stamp = {"at": order.at, "via": order.via, "order": order.id}
    gone_pages = set(done.removed)
    seen: set[str] = set()
    for row in done.erased:
        if row["id"] in seen:
            continue
        seen.add(row["id"])
        page = row["page"] if row["page"] not in gone_pages else None
        words = order.texts.get(row["id"], row["text"])
        yield {"kind": "fact", "id": row["id"], "page": page, **_print(ws, words), **stamp}
    for slug in done.removed:
        yield {"kind": "page", **_print(ws, slug), **stamp}


def _print(workspace: Any, text: str) -> dict[str, str]:
    return {"fingerprint": fingerprint(workspace, text)} if normalized(text) else {}
