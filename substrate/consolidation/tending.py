"""Correcting filed facts, finding them, and what changed: `memory correct`,
`memory history` (a forget erases, and lives in `forgetting`).

A correction supersedes: the corrected text becomes a new current fact on the
same page (its own entry id, dated now, the old fact's slot), and the old one
moves under `### Earlier`, "replaced by" the correction. It is one atomic,
drift-aware write of one page under the consolidation lock, so a kill leaves
the page before or after, never torn, and each fact in exactly one place;
the decision log records the change and the views are brought up to the
pages in the same journaled change. A correction is the person's own words:
scanned under the user policy, and written to its day's archive like every
remembered fact. History tells every change, and a forgotten fact or
conversation by its tombstone alone (when, through what; no words).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.explain import fact_json
from substrate.consolidation.log import (
    changes_journal,
    commit_change,
    record_change,
    recover_changes,
    rows,
)
from substrate.errors import InvalidInputError, LockHeldError, NotFoundError
from substrate.intake import BufferEntry, archive_fact, entry_id, read_buffer
from substrate.lineage import read_tombstones
from substrate.pages import (
    FactBullet,
    PageEntry,
    PageIndex,
    content_hash,
    fact_bullets,
    fold,
    fresh_pages,
    load_page_index,
    path_for_slug,
    validate_slug,
    with_facts,
)
from substrate.pages.facts import FORGOTTEN, is_entry_id
from substrate.safety import (
    FileSnapshot,
    checked_text,
    hold_lock,
    journal,
    read_bytes_snapshot,
    read_text_snapshot,
)

LOCK_TIMEOUT_S = 60.0
LISTED = 10  # matches named in a refusal
MIN_TEXT = 3


@dataclass(frozen=True)
class FactMatch:
    slug: str
    bullet: FactBullet

    def as_json(self) -> dict[str, Any]:
        return {"page": self.slug, **fact_json(self.bullet)}


def find_facts(
    settings: Settings,
    what: str,
    page: str | None = None,
    index: PageIndex | None = None,
    legacy: bool = False,
    pages: Mapping[str, PageEntry] | None = None,
) -> list[FactMatch]:
    """The facts `what` names: an entry id (any status but forgotten), else text,
    the facts whose text equals it (case and spacing aside), else the current
    facts that contain it. `page` narrows the search to one page; `index`: the
    page index when the caller has just loaded it (or `pages`, its entries);
    `legacy`: a fact an older release kept on its page as forgotten is found
    too (a forget erases it)."""
    wanted = fold(what).casefold()
    if len(wanted) < MIN_TEXT:
        raise InvalidInputError(f"name a fact by its id or at least {MIN_TEXT} characters of it")
    entries = pages if pages is not None else (index or load_page_index(settings.workspace)).entries
    if page is not None:
        validate_slug(page)
        if page not in entries:
            raise NotFoundError(f"no concept page {page!r}")
    by_id = is_entry_id(what.strip())
    found: list[FactMatch] = []
    holding = [
        (slug, entry)
        for slug, entry in entries.items()
        if entry.filed
        and (page is None or slug == page)
        and (not by_id or what.strip() in entry.filed)
    ]
    for slug, entry in sorted(holding):
        text, _ = read_text_snapshot(settings.workspace.concepts_dir / entry.path)
        found += [FactMatch(slug, b) for b in fact_bullets(text) if legacy or not forgotten(b)]
    if by_id:
        return [m for m in found if m.bullet.entry_id == what.strip()]
    exact = [m for m in found if fold(m.bullet.text).casefold() == wanted]
    if exact:
        return exact
    return [m for m in found if m.bullet.current and wanted in fold(m.bullet.text).casefold()]


def forgotten(bullet: FactBullet) -> bool:
    return bullet.status == "retracted" and bullet.attrs.get("via") == FORGOTTEN


def find_buffered(settings: Settings, what: str) -> list[BufferEntry]:
    """The buffer entries `what` names, by the rules of `find_facts`: an entry id,
    else the entries whose text equals it, else those that contain it."""
    wanted = fold(what).casefold()
    entries = read_buffer(settings)
    if is_entry_id(what.strip()):
        return [e for e in entries if e.id == what.strip()]
    exact = [e for e in entries if fold(e.text).casefold() == wanted]
    return exact or [e for e in entries if wanted in fold(e.text).casefold()]


def note_hand_edits(settings: Settings, pages: Sequence[str]) -> list[str]:
    """Of `pages` (just re-indexed: their content changed), those whose content
    is not what the last logged change to them left: a person (or another
    program) edited them. Each is logged as a hand edit, seen by maintain. A page
    no logged change ever wrote is not judged."""
    if not pages:
        return []
    last: dict[str, str] = {}
    for row in rows(settings):
        sha = row.get("sha256")
        where = row.get("to") or row.get("page")
        if isinstance(sha, str) and isinstance(where, str):
            last[where] = sha
    now = {slug: _file_hash(settings, slug) for slug in pages if slug in last}
    edited = [slug for slug, sha in now.items() if sha is not None and sha != last[slug]]
    for slug in edited:
        row = {"at": time.time(), "op": "hand_edit", "page": slug, "via": "seen by maintain"}
        record_change(settings, {**row, "sha256": now[slug]})
    return edited


def _file_hash(settings: Settings, slug: str) -> str | None:
    """A page's content hash read from its file (the few pages a maintain just
    re-indexed: no walk of every page for them)."""
    try:
        data = read_bytes_snapshot(path_for_slug(settings.workspace.concepts_dir, slug))[0]
    except (OSError, InvalidInputError):
        return None
    return None if data is None else content_hash(data)


def correct_fact(
    settings: Settings, fact_id: str, text: str, now: datetime | None = None
) -> dict[str, Any]:
    """Supersede the current fact `fact_id` with `text`; the new fact and the old."""
    checked_text(text, "text", settings.limits.fact_bytes, "fact_bytes")
    admitted = settings.scanner.admit(text, "user", learned=False)
    if admitted.verdict.held:
        raise InvalidInputError(
            f"the scanner would hold this text for review (rule {admitted.verdict.held_rule!r}); "
            "remember it instead, so an operator can release it"
        )
    cleaned = " ".join(admitted.text.split())
    if not cleaned:
        raise InvalidInputError("text is empty; nothing was corrected")
    if not is_entry_id(fact_id):
        raise InvalidInputError(f"{fact_id!r} is not a fact id (12 hex digits, as `memory facts`)")
    at = (now or datetime.now(UTC)).astimezone(UTC).replace(second=0, microsecond=0)
    with hold_lock(
        settings.workspace.consolidation_lock_path, timeout_s=LOCK_TIMEOUT_S, purpose="correct"
    ):
        recover_changes(settings)
        pages = fresh_pages(settings.workspace)  # the folders that changed, not every page
        matches = find_facts(settings, fact_id, pages=pages)
        if not matches:
            raise NotFoundError(f"no fact with id {fact_id!r} on any page")
        slug, old = matches[0].slug, matches[0].bullet
        if not old.current:
            raise InvalidInputError(
                f"fact {fact_id} is {old.status}, no longer current: correct the fact that "
                f"is current (`memory facts {slug}`)"
            )
        if fold(old.text) == cleaned:
            raise InvalidInputError(f"fact {fact_id} already reads {cleaned!r}; nothing changed")
        new = FactBullet(
            _fresh_id(pages, at, cleaned, fact_id),
            at.date(),
            cleaned,
            attrs={"via": "correct"},
            slot=old.slot,
        )
        path, page_text, snapshot = _page(settings, slug, pages)
        updated = with_facts(page_text, added=[new], changed=[old.superseded_by(new)])
        data = updated.encode("utf-8")
        row = {"at": time.time(), "op": "correct", "id": new.entry_id, "page": slug}
        row |= {"text": cleaned, "replaced": [fact_id], "sha256": content_hash(data)}
        steps: list[journal.Step] = [journal.Replace(path, data, snapshot)]
        commit_change(settings, steps, [row], present=set(pages))
    archive_fact(settings, at, cleaned, new.entry_id or "")
    return {"page": slug, "fact": fact_json(new), "replaced": fact_json(old.superseded_by(new))}


def history(settings: Settings, what: str) -> dict[str, Any]:
    """What changed, oldest first: for a fact id, every decision and change about
    it (and the fact that replaced it), and its tombstone once forgotten; for a
    page, every filing onto it and every change made to it; for a forgotten
    conversation, its tombstones (which messages, when, through what)."""
    _finish_pending(settings)
    graves = read_tombstones(settings.workspace)
    if is_entry_id(what):
        events = _fact_events(settings, what)
        grave = graves.facts.get(what)
        events += [_forgotten(grave)] if grave is not None else []
        if not events:
            raise NotFoundError(f"nothing recorded about fact {what!r}")
        return {"fact": what, "events": events}
    said = [_event(r) for r in rows(settings) if r.get("session") == what]
    about = sorted(graves.about_session(what), key=lambda r: float(r.get("at") or 0))
    said += [_forgotten(r) for r in about]
    if said:  # a forgotten conversation's tombstones: which messages, when, no text
        return {"session": what, "events": said}
    validate_slug(what)
    logged = rows(settings)
    names = _former_names(logged, what)
    events = [_event(r) for r in logged if any(_about_page(r, n, names[n]) for n in names)]
    if not events and what not in load_page_index(settings.workspace).entries:
        raise NotFoundError(f"no concept page {what!r} and nothing recorded about it")
    return {"page": what, "events": events}


def _fact_events(settings: Settings, fact_id: str) -> list[dict[str, Any]]:
    """In the order they were logged: the fact's own rows, and the changes that
    replaced it."""
    return [
        _event(r)
        for r in rows(settings)
        if r.get("id") == fact_id or (r.get("op") and fact_id in r.get("replaced", ()))
    ]


def _about_page(row: dict[str, Any], slug: str, until: float | None = None) -> bool:
    """Whether `row` is about the page named `slug` (up to `until`, the time it
    was renamed away from that name: a later page of the same name is another)."""
    at = row.get("at")
    if until is not None and isinstance(at, int | float) and at > until:
        return False
    return slug in (row.get("page"), row.get("from"), row.get("to"))


def _former_names(logged: list[dict[str, Any]], slug: str) -> dict[str, float | None]:
    """The names the page now at `slug` had, each with the time it was moved
    away from it (None: its name now), following `move_page` rows backwards."""
    names: dict[str, float | None] = {slug: None}
    frontier = [slug]
    while frontier:
        name = frontier.pop()
        until = names[name]
        for row in logged:
            at, old = row.get("at"), row.get("from")
            if row.get("op") != "move_page" or row.get("to") != name or not isinstance(old, str):
                continue
            if not isinstance(at, int | float) or (until is not None and at > until):
                continue
            if old not in names:
                names[old] = at
                frontier.append(old)
    return names


def _forgotten(row: dict[str, Any]) -> dict[str, Any]:
    """A tombstone as history tells it: when, what went, through what; no words."""
    at = row.get("at")
    when = datetime.fromtimestamp(at, UTC).isoformat() if isinstance(at, int | float) else None
    kind = row.get("kind")
    op = {"fact": "forgotten", "session": "forget_session", "message": "forget_message"}
    out = {"at": when, "op": op.get(str(kind), f"forgotten_{kind}"), "via": row.get("via")}
    keep = ("id", "page", "session", "messages") if kind != "fact" else ("id", "page")
    return out | {k: row[k] for k in keep if row.get(k)}


def _event(row: dict[str, Any]) -> dict[str, Any]:
    """A logged row as history tells it: when, what happened, through what."""
    at = row.get("at")
    when = datetime.fromtimestamp(at, UTC).isoformat() if isinstance(at, int | float) else None
    op = row.get("op")
    if op is None:  # a filing decision of a consolidation run
        lifecycle = row.get("lifecycle") or row.get("status")
        op, via = f"file:{lifecycle}", f"consolidation ({row.get('planner', '?')})"
    else:
        via = row.get("via") or "request"
    keep = (
        *("id", "page", "text", "replaced", "from", "to", "reason", "slot", "superseded_by"),
        *("session", "messages"),
    )
    return {"at": when, "op": op, "via": via, **{k: row[k] for k in keep if row.get(k)}}


def _fresh_id(pages: Mapping[str, PageEntry], at: datetime, text: str, replaced: str) -> str:
    """The correction's id: the id of its text and minute, unless a fact on some
    page has it already (the same words corrected onto two facts in one
    minute), then one that also names the fact it replaces: an id is on one
    page only."""
    taken = {i for e in pages.values() for i in e.filed}
    plain = entry_id(at, text)
    return plain if plain not in taken else entry_id(at, f"{text}\n{replaced}")


def _finish_pending(settings: Settings) -> None:
    """A change a killed writer left half made is finished before its history is
    read, when the lock is free (else its holder finishes it)."""
    if not changes_journal(settings).exists():
        return
    with (
        contextlib.suppress(LockHeldError),
        hold_lock(settings.workspace.consolidation_lock_path, timeout_s=1.0, purpose="history"),
    ):
        recover_changes(settings)


def _page(
    settings: Settings, slug: str, pages: Mapping[str, PageEntry]
) -> tuple[Path, str, FileSnapshot]:
    entry = pages.get(slug)
    if entry is None:
        raise NotFoundError(f"no concept page {slug!r}")
    path = settings.workspace.concepts_dir / entry.path
    text, snapshot = read_text_snapshot(path)
    return path, text, snapshot


def _several(what: str, matches: Sequence[FactMatch], buffered: Sequence[BufferEntry]) -> str:
    named = [f"{m.bullet.entry_id} on {m.slug}: {fold(m.bullet.text)[:60]}" for m in matches]
    named += [f"{e.id} in the buffer: {fold(e.text)[:60]}" for e in buffered]
    shown = "; ".join(named[:LISTED])
    more = f" (and {len(named) - LISTED} more)" if len(named) > LISTED else ""
    return (
        f"{len(named)} facts match {what!r}: {shown}{more}; name one by its id, narrow "
        "with --page, or forget them all with --all"
    )
