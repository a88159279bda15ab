"""v1 filing: remembered facts leave the buffer for the knowledge base.

On tier v1 there are no concept pages, so consolidation's place is taken by a
plain filer: each buffer entry becomes a managed fact bullet (date and entry id,
the `substrate.pages.facts` format) on its month's note,
`memory/pkb/remembered/<YYYY-MM>.md`. The notes are written first (atomically,
drift-aware), the buffer trimmed after, under the consolidation lock: a
process killed in between leaves the fact on its note *and* in the buffer, and
the next run sees the entry id on the note and only trims, so every fact ends
in exactly one place. Entries the consolidation filters skip (secrets,
instructions, chatter) leave the buffer unfiled, as they do on v2/v3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from substrate.config import Settings
from substrate.config.tiers import memory_tier
from substrate.consolidation.filters import screen
from substrate.errors import MemoryDisabledError
from substrate.intake import BufferEntry, hold_entries, read_buffer, trim_buffer
from substrate.pages import FactBullet, load_page_index, new_page_text, with_facts
from substrate.pages.facts import MONTHS
from substrate.safety import hold_lock, read_text_snapshot, write_atomic

LOCK_TIMEOUT_S = 60.0
FOLDER = "remembered"


@dataclass
class PkbFiled:
    filed: int = 0  # entries that went onto a note this run
    earlier: int = 0  # entries a previous (killed) run had already put on a note
    skipped: dict[str, str] = field(default_factory=dict)  # entry id -> why
    held: dict[str, str] = field(default_factory=dict)  # entry id -> why (stays in the buffer)
    notes: list[str] = field(default_factory=list)  # note slugs written
    dry_run: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "tier": "v1",
            "dry_run": self.dry_run,
            "filed": self.filed,
            "earlier": self.earlier,
            "skipped": self.skipped,
            "held": self.held,
            "notes": self.notes,
        }


def file_into_pkb(settings: Settings, *, dry_run: bool = False) -> PkbFiled:
    """File every buffer entry onto its month's knowledge-base note (module doc)."""
    if memory_tier(settings.config) != "v1":
        raise MemoryDisabledError(
            "knowledge-base filing runs only on tier v1; this workspace files into concept pages"
        )
    pkb = settings.pkb().workspace
    outcome = PkbFiled(dry_run=dry_run)
    with hold_lock(
        settings.workspace.consolidation_lock_path,
        timeout_s=LOCK_TIMEOUT_S,
        purpose="consolidation",
    ):
        entries = read_buffer(settings)
        filed_on = {eid for e in load_page_index(pkb).entries.values() for eid in e.filed}
        by_note: dict[str, list[BufferEntry]] = {}
        held: dict[str, str] = {}
        for entry in entries:
            screened = None if entry.id in filed_on else screen(entry, settings.scanner)
            if entry.id in filed_on:
                outcome.earlier += 1
            elif screened is None:
                by_note.setdefault(f"{FOLDER}/{entry.at:%Y-%m}", []).append(entry)
            elif screened.action == "hold":
                outcome.held[entry.id] = screened.reason
                if screened.new and screened.rule:
                    held[entry.id] = screened.rule
            else:
                outcome.skipped[entry.id] = screened.reason
        outcome.filed = sum(len(batch) for batch in by_note.values())
        outcome.notes = sorted(by_note)
        if dry_run:
            return outcome
        hold_entries(settings, held)
        for slug, batch in sorted(by_note.items()):
            _append(pkb.concepts_dir / f"{slug}.md", batch)
        leaving = filed_on | set(outcome.skipped)
        leaving |= {e.id for batch in by_note.values() for e in batch}
        trim_buffer(settings, {e.id for e in entries if e.id in leaving})
    return outcome


def _append(path: Path, batch: list[BufferEntry]) -> None:
    text, snap = read_text_snapshot(path)
    bullets = [FactBullet(e.id, e.at.date(), e.text, e.source) for e in batch]
    if not text:
        first: date = batch[0].at.date()
        title = f"Remembered in {MONTHS[first.month - 1]} {first.year}"
        write_atomic(path, new_page_text(title, bullets), expected=snap)
    else:
        write_atomic(path, with_facts(text, bullets), expected=snap)
