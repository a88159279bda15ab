"""`memory lineage ID|SLUG|SESSION`: what an item was derived from, and what
was derived from it, read from the lineage every record carries (the walk's
own reading, shown).

- a fact (its entry id): the messages it was captured from, the facts it
  replaced or ended and the one that replaced it;
- a logged message or a session: the facts captured from it, the promotions
  and curation candidates it is evidence for, its episodes;
- a promotion (p-…) or a curation candidate (c-…): its evidence;
- a page: each of its facts and where each came from.

A forgotten item answers with its tombstone (when, through what), no words.
"""

from __future__ import annotations

from typing import Any

from substrate.config import Settings
from substrate.curation.store import CurationStore
from substrate.errors import NotFoundError
from substrate.intake import read_buffer
from substrate.lineage import read_tombstones, when
from substrate.pages import FactBullet, fact_bullets, load_page_index, validate_slug
from substrate.pages.facts import is_entry_id
from substrate.promotion import PromotionStore, file_for
from substrate.safety import read_text_snapshot
from substrate.sessions import SessionLog
from substrate.sessions.episodes import episodes_of

Item = dict[str, Any]
MESSAGE_IDS = 2**63  # a message id is below this (SQLite's largest integer + 1)


def lineage(settings: Settings, log: SessionLog, what: str) -> dict[str, Any]:
    """The lineage of `what` (see the module doc); `NotFoundError` when it names
    nothing known, alive or forgotten."""
    what = what.strip()
    graves = read_tombstones(settings.workspace)
    if what.isdigit() and len(what) <= 19:
        if int(what) >= MESSAGE_IDS:  # past SQLite's integers: no message has it
            raise NotFoundError(f"no logged message {what}")
        return _message(settings, log, int(what), graves.messages.get(int(what)))
    if is_entry_id(what):
        return _fact(settings, what, graves.facts.get(what))
    if what.startswith(("p-", "c-")):
        return _record(settings, what, graves.records.get(what))
    if log.session(what) is not None or what in graves.sessions:
        return _session(settings, log, what, graves.sessions.get(what))
    validate_slug(what)
    return _page(settings, what)


def _forgotten(kind: str, what: Any, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "item": what,
        "kind": kind,
        "forgotten": when(row),
        "via": row.get("via"),
        "derived_from": [],
        "derived": [],
    }


def _message(settings: Settings, log: SessionLog, message_id: int, grave: Any) -> dict[str, Any]:
    session = log.session_of(message_id)
    if session is None:
        if grave is not None:
            return _forgotten("message", message_id, grave)
        raise NotFoundError(f"no logged message {message_id}")
    derived = _derived_from_messages(settings, log, {message_id}, {session})
    return {
        "item": message_id,
        "kind": "message",
        "derived_from": [{"kind": "session", "id": session}],
        "derived": derived,
    }


def _session(settings: Settings, log: SessionLog, session: str, grave: Any) -> dict[str, Any]:
    messages = log.messages(session)
    if not messages:
        if grave is not None:
            return _forgotten("session", session, grave)
        raise NotFoundError(f"no logged session {session!r} with messages")
    ids = {m.id for m in messages}
    derived = _derived_from_messages(settings, log, ids, {session})
    derived += [{"kind": "episode", "id": e.slug} for e in episodes_of(messages)]
    return {
        "item": session,
        "kind": "session",
        "derived_from": [{"kind": "message", "id": i} for i in sorted(ids)],
        "derived": derived,
    }


def _derived_from_messages(
    settings: Settings, log: SessionLog, ids: set[int], sessions: set[str]
) -> list[Item]:
    out: list[Item] = []
    for entry in read_buffer(settings):
        if ids.intersection(entry.sources):
            out.append({"kind": "fact", "id": entry.id, "where": "buffer"})
    index = load_page_index(settings.workspace)
    for page in index.entries.values():
        if not ids.intersection(page.sources):
            continue
        for b in _bullets(settings, page.path):
            if ids.intersection(b.sources):
                out.append({"kind": "fact", "id": b.entry_id, "where": page.slug})
    for record in PromotionStore.load(settings.workspace).records.values():
        said = {m for ms in record.evidence_messages.values() for m in ms}
        if said & ids or sessions.intersection(record.evidence_sessions):
            out.append({"kind": "promotion", "id": record.id, "status": record.status})
    for candidate in CurationStore.load(settings.workspace).candidates:
        if _evidence(candidate.fact) & ids:
            out.append({"kind": "candidate", "id": candidate.id, "status": candidate.status})
    return out


def _fact(settings: Settings, fact_id: str, grave: Any) -> dict[str, Any]:
    for entry in read_buffer(settings):
        if entry.id == fact_id:
            return {
                "item": fact_id,
                "kind": "fact",
                "where": "buffer",
                "derived_from": [{"kind": "message", "id": m} for m in entry.sources],
                "derived": [],
            }
    index = load_page_index(settings.workspace)
    for page in index.entries.values():
        if fact_id not in page.filed:
            continue
        bullets = _bullets(settings, page.path)
        own = next((b for b in bullets if b.entry_id == fact_id), None)
        ended = [
            {"kind": "fact", "id": b.entry_id, "relation": b.status}
            for b in bullets
            if b.by == fact_id
        ]
        sources = [{"kind": "message", "id": m} for m in (own.sources if own else ())]
        if own is not None and own.by:
            sources.append({"kind": "fact", "id": own.by, "relation": f"{own.status} by"})
        return {
            "item": fact_id,
            "kind": "fact",
            "where": page.slug,
            "derived_from": sources,
            "derived": ended,
        }
    if grave is not None:
        return _forgotten("fact", fact_id, grave)
    raise NotFoundError(f"no fact {fact_id!r} in the buffer or on any page")


def _record(settings: Settings, ident: str, grave: Any) -> dict[str, Any]:
    if ident.startswith("p-"):
        for record in PromotionStore.load(settings.workspace).records.values():
            if record.id == ident:
                sources: list[Item] = [
                    {"kind": "session", "id": s} for s in record.evidence_sessions
                ]
                sources += [
                    {"kind": "message", "id": m}
                    for ms in record.evidence_messages.values()
                    for m in ms
                ]
                return {
                    "item": ident,
                    "kind": "promotion",
                    "derived_from": sources,
                    "derived": [{"kind": "profile_line", "file": file_for(record.kind)}]
                    if record.status == "active"
                    else [],
                }
    else:
        for candidate in CurationStore.load(settings.workspace).candidates:
            if candidate.id == ident:
                lines = (
                    [{"kind": "profile_line", "file": candidate.operation.file}]
                    if candidate.status == "applied" and candidate.operation
                    else []
                )
                return {
                    "item": ident,
                    "kind": "candidate",
                    "derived_from": [
                        {"kind": "message", "id": m} for m in sorted(_evidence(candidate.fact))
                    ],
                    "derived": lines,
                }
    if grave is not None:
        return _forgotten("promotion" if ident.startswith("p-") else "candidate", ident, grave)
    raise NotFoundError(f"no promotion or curation candidate {ident!r}")


def _page(settings: Settings, slug: str) -> dict[str, Any]:
    entry = load_page_index(settings.workspace).entries.get(slug)
    if entry is None:
        raise NotFoundError(f"no concept page, fact, message or session {slug!r}")
    facts = [
        {
            "kind": "fact",
            "id": b.entry_id,
            "status": b.status,
            "from": [{"kind": "message", "id": m} for m in b.sources],
        }
        for b in _bullets(settings, entry.path)
        if b.entry_id
    ]
    return {"item": slug, "kind": "page", "derived_from": facts, "derived": []}


def _bullets(settings: Settings, path: str) -> list[FactBullet]:
    text, _ = read_text_snapshot(settings.workspace.concepts_dir / path)
    return fact_bullets(text)


def _evidence(fact: dict[str, Any]) -> set[int]:
    found = fact.get("evidence", [])
    if not isinstance(found, list):
        return set()
    return {
        int(e["message_id"])
        for e in found
        if isinstance(e, dict) and isinstance(e.get("message_id"), int)
    }
