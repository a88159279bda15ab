"""`memory consolidate --explain ENTRY_ID` and `memory facts SLUG`: where an entry
went and why, what a page holds and which of it is still true."""

from __future__ import annotations

from typing import Any

from substrate.config import Settings
from substrate.consolidation.log import decisions
from substrate.errors import NotFoundError
from substrate.intake import read_buffer
from substrate.pages import FactBullet, PageIndex, fact_bullets, load_page_index, validate_slug
from substrate.safety import read_text_snapshot


def explain(settings: Settings, entry_id: str) -> dict[str, Any]:
    """The entry's state now (waiting in the buffer, or on which page, current or
    not) and every recorded decision about it (the slot it took, what it
    replaced or why it did not)."""
    pending = next((e for e in read_buffer(settings) if e.id == entry_id), None)
    index = load_page_index(settings.workspace)
    pages = [slug for slug, e in index.entries.items() if entry_id in e.filed]
    history = decisions(settings, entry_id)
    if pending is None and not pages and not history:
        raise NotFoundError(
            f"no buffer entry, filed fact or recorded decision with id {entry_id!r}"
        )
    state = "in the buffer" if pending is not None else ("filed" if pages else "gone")
    facts = [
        {"page": slug, **fact_json(b)}
        for slug in pages
        for b in _bullets(settings, index, slug)
        if b.entry_id == entry_id
    ]
    return {
        "id": entry_id,
        "state": state,
        "text": pending.text if pending is not None else None,
        "pages": pages,
        "facts": facts,
        "decisions": history,
    }


def page_facts(settings: Settings, slug: str, include_all: bool = False) -> dict[str, Any]:
    """A page's facts with their status: the current ones, or (`include_all`)
    those no longer true too, in page order."""
    validate_slug(slug)
    index = load_page_index(settings.workspace)
    if slug not in index.entries:
        raise NotFoundError(f"no concept page {slug!r}")
    bullets = _bullets(settings, index, slug)
    shown = [fact_json(b) for b in bullets if include_all or b.current]
    return {"slug": slug, "facts": shown}


def fact_json(bullet: FactBullet) -> dict[str, Any]:
    return {
        "id": bullet.entry_id,
        "text": bullet.text,
        "date": bullet.day.isoformat(),
        "slot": bullet.slot,
        "status": bullet.status,
        "superseded_by": bullet.by,
        "until": bullet.until.isoformat() if bullet.until else None,
    }


def _bullets(settings: Settings, index: PageIndex, slug: str) -> list[FactBullet]:
    entry = index.entries.get(slug)
    if entry is None:
        return []
    text, _ = read_text_snapshot(settings.workspace.concepts_dir / entry.path)
    return fact_bullets(text)
