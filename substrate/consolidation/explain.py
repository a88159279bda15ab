"""`memory consolidate --explain ENTRY_ID`: where an entry went and why."""

from __future__ import annotations

from typing import Any

from substrate.config import Settings
from substrate.consolidation.log import decisions
from substrate.errors import NotFoundError
from substrate.intake import read_buffer
from substrate.pages import load_page_index


def explain(settings: Settings, entry_id: str) -> dict[str, Any]:
    """The entry's state now (waiting in the buffer, or on which page) and every
    recorded decision about it."""
    pending = next((e for e in read_buffer(settings) if e.id == entry_id), None)
    index = load_page_index(settings.workspace)
    pages = [slug for slug, e in index.entries.items() if entry_id in e.filed]
    history = decisions(settings, entry_id)
    if pending is None and not pages and not history:
        raise NotFoundError(
            f"no buffer entry, filed fact or recorded decision with id {entry_id!r}"
        )
    state = "in the buffer" if pending is not None else ("filed" if pages else "gone")
    return {
        "id": entry_id,
        "state": state,
        "text": pending.text if pending is not None else None,
        "pages": pages,
        "decisions": history,
    }
