"""Facts held for review: a person's words the scanner read as an attack on a
judgement (a fuzzy rule, the learned detector) are kept, never refused or
dropped, and never filed until the operator releases them.

The mark lives on the entry's first line in the buffer (`buffer` owns the
format): ` <!-- held:RULE -->` while held, ` <!-- released -->` once let
through. Rewrites run under the buffer lock, against the buffer as it is now,
so a fact remembered meanwhile stays; the archive keeps the entry as it was
remembered (the day's record of what was said, not of its review).
"""

from __future__ import annotations

from dataclasses import replace

from substrate.config.settings import Settings
from substrate.errors import NotFoundError
from substrate.intake.buffer import (
    HELD,
    RELEASED,
    BufferEntry,
    buffer_preamble,
    format_buffer,
    parse_buffer,
)
from substrate.intake.landing import recover_intake
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import read_text_snapshot, write_atomic


def held_entries(settings: Settings) -> list[BufferEntry]:
    """Every buffer entry held for review, oldest first."""
    text, _ = read_text_snapshot(settings.workspace.buffer_path)
    return [e for e in parse_buffer(text) if e.held is not None]


def hold_entries(settings: Settings, rules: dict[str, str]) -> int:
    """Mark these entries (id -> rule) held; returns how many were newly marked.
    A released entry is not held again: the operator's decision stands."""
    return len(_remark(settings, {i: f"{HELD}{r}" for i, r in rules.items()}, keep_released=True))


def release_entries(settings: Settings, ids: list[str]) -> list[BufferEntry]:
    """Release held entries so the next consolidation files them; returns them
    as released. An id that is not a held entry in the buffer is an error
    naming it, and nothing is released."""
    held = {e.id for e in held_entries(settings)}
    unknown = [i for i in ids if i not in held]
    if unknown:
        raise NotFoundError(f"no held entry {', '.join(unknown)} in memory/buffer.md")
    return _remark(settings, dict.fromkeys(ids, RELEASED), keep_released=False)


def _remark(settings: Settings, marks: dict[str, str], *, keep_released: bool) -> list[BufferEntry]:
    if not marks:
        return []
    ws = settings.workspace
    with hold_lock(ws.buffer_lock_path, purpose="buffer"):
        recover_intake(settings)
        text, snapshot = read_text_snapshot(ws.buffer_path)
        entries = parse_buffer(text)
        changed: list[BufferEntry] = []
        out: list[BufferEntry] = []
        for entry in entries:
            mark = marks.get(entry.id)
            if mark is None or entry.review == mark or (keep_released and entry.released):
                out.append(entry)
                continue
            entry = replace(entry, review=mark)
            changed.append(entry)
            out.append(entry)
        if changed:
            write_atomic(
                ws.buffer_path, format_buffer(buffer_preamble(text), out), expected=snapshot
            )
    return changed
