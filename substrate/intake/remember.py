"""The `remember` write path: scanner → buffer + archive, both or neither.

A fact goes into the buffer (rewritten atomically: readers see it whole or
not at all) and is appended to its day's archive, as one journaled change
(`safety.journal`): a process killed at any point leaves the fact in both
files or in neither, and the next `remember` (or consolidation's trim)
finishes a change a killed one left, under the buffer lock. The archive is
appended, never rewritten, so a `remember` costs the buffer it reads (which
consolidation keeps short), not the day's archive, however large. A
retry of the same fact within the same minute (a client that lost the answer
to a killed call) finds the entry already in the buffer and returns it
instead of adding it again. A write that fails with an error rather than a
crash is undone, so the call leaves both files as they were.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from substrate.config.settings import Settings
from substrate.config.tiers import is_memory_enabled
from substrate.errors import InvalidInputError, MemoryDisabledError
from substrate.intake.buffer import (
    BufferEntry,
    buffer_preamble,
    format_buffer,
    format_entry,
    parse_buffer,
    with_hints,
)
from substrate.pages.slugs import validate_slug
from substrate.safety import journal
from substrate.safety.inputs import checked_text
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import (
    last_byte,
    read_text_snapshot,
    sweep_stale_temps,
    write_atomic,
)

MAX_HINTS = 64
BUFFER_HEADING = "# Buffer\n\n"


def remember(
    settings: Settings,
    text: str,
    hints: list[str] | None = None,
    now: datetime | None = None,
    source: str = "user",
) -> BufferEntry:
    """Append one fact to the buffer and its day's archive; returns the stored entry.
    `now` backdates the entry (migrations), and the fact goes to that day's archive.
    `source` picks the scanner's policy and, when it is not the user's own words
    (`captured`: drawn from a conversation), travels with the fact as its provenance."""
    if not is_memory_enabled(settings.config):
        raise MemoryDisabledError("memory is disabled (memory.enabled = false); nothing was saved")
    checked_text(text, "text", settings.limits.fact_bytes, "fact_bytes")
    hints = hints or []
    if len(hints) > MAX_HINTS:
        raise InvalidInputError(f"at most {MAX_HINTS} hints per fact, got {len(hints)}")
    hint_slugs = [validate_slug(h.strip()) for h in hints]
    cleaned = settings.scanner.scan(text, source).strip()
    if not cleaned:
        raise InvalidInputError("text is empty; nothing was saved")
    stamped = (now or datetime.now(UTC)).astimezone(UTC).replace(second=0, microsecond=0)
    body = with_hints(cleaned, hint_slugs)
    provenance = None if source == "user" else source
    ws = settings.workspace
    with hold_lock(ws.buffer_lock_path, purpose="buffer"):
        recover_intake(settings)
        buffer, snapshot = read_text_snapshot(ws.buffer_path)
        for entry in parse_buffer(buffer):
            if entry.at == stamped and entry.text == body and entry.source == provenance:
                return entry  # the same fact, retried within its minute
        record = format_entry(stamped, body, provenance)
        new_buffer = _appended(buffer or BUFFER_HEADING, record)
        archive = archive_path(settings, stamped)
        heading = f"# Archive {stamped:%Y-%m-%d}\n\n"
        journal.commit(
            intake_journal(settings),
            [
                journal.Replace(ws.buffer_path, new_buffer.encode("utf-8"), snapshot),
                journal.Append(archive, (_lead(archive, heading) + record).encode("utf-8")),
            ],
        )
    return parse_buffer(new_buffer)[-1]


def intake_journal(settings: Settings) -> Path:
    return settings.workspace.memory_dir / ".intake.journal"


def recover_intake(settings: Settings) -> list[str]:
    """Finish a remember or a trim a killed process left half done (call under
    the buffer lock), and sweep the temp files killed writers left."""
    ws = settings.workspace
    sweep_stale_temps([ws.memory_dir, ws.archive_dir])
    return journal.recover(intake_journal(settings))


def archive_path(settings: Settings, at: datetime) -> Path:
    return settings.workspace.archive_dir / f"{at:%Y-%m-%d}.md"


def _lead(path: Path, heading: str) -> str:
    """What must precede an entry appended to `path`: its heading when the file is
    new or empty, a line break when it does not end in one (its last byte read)."""
    last = last_byte(path)
    return heading if last is None else ("" if last == b"\n" else "\n")


def _appended(existing: str, entry: str) -> str:
    return existing + ("" if existing.endswith("\n") else "\n") + entry


def reconcile_archive(settings: Settings, entries: list[BufferEntry]) -> int:
    """Append to each day's archive the entries it lacks; returns how many.

    For buffers written before remember was journaled (a kill between the two
    writes left a fact in the buffer only): trim runs it on what leaves the
    buffer, so an entry never leaves before the archive holds it. Counted by
    (minute, text), so an archive holding a fact once and a buffer holding it
    once agree, and two identical facts need two archive entries. Call under
    the buffer lock."""
    by_day: dict[str, list[BufferEntry]] = {}
    for entry in entries:
        by_day.setdefault(f"{entry.at:%Y-%m-%d}", []).append(entry)
    added = 0
    for day, wanted in sorted(by_day.items()):
        path = settings.workspace.archive_dir / f"{day}.md"
        archive, snap = read_text_snapshot(path)
        have = Counter((e.at, e.text) for e in parse_buffer(archive))
        missing: list[BufferEntry] = []
        for entry in wanted:
            key = (entry.at, entry.text)
            if have[key] > 0:
                have[key] -= 1
            else:
                missing.append(entry)
        if missing:
            text = _appended(archive, "") if archive else f"# Archive {day}\n\n"
            text += "".join(format_entry(e.at, e.text, e.source) for e in missing)
            write_atomic(path, text, expected=snap)
            added += len(missing)
    return added


def trim_buffer(settings: Settings, ids: set[str]) -> int:
    """Remove these entries from the buffer (consolidation filed or skipped them);
    returns how many went. Under the buffer lock and against the buffer as it is
    now, so a fact remembered meanwhile stays; the archive is completed first, so
    an entry never leaves the buffer before the archive holds it."""
    if not ids:
        return 0
    ws = settings.workspace
    with hold_lock(ws.buffer_lock_path, purpose="buffer"):
        recover_intake(settings)
        buffer, snapshot = read_text_snapshot(ws.buffer_path)
        entries = parse_buffer(buffer)
        leaving = [e for e in entries if e.id in ids]
        if not leaving:
            return 0
        reconcile_archive(settings, leaving)
        kept = [e for e in entries if e.id not in ids]
        write_atomic(
            ws.buffer_path, format_buffer(buffer_preamble(buffer), kept), expected=snapshot
        )
    return len(leaving)


def read_buffer(settings: Settings) -> list[BufferEntry]:
    text, _ = read_text_snapshot(settings.workspace.buffer_path)
    return parse_buffer(text)
