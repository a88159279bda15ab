"""The `remember` write path: checks and the scanner, then `landing` puts the
fact in the buffer and its day's archive, both or neither.

The archive is appended, never rewritten, so a `remember` costs the buffer it
reads (which consolidation keeps short), not the day's archive, however
large; concurrent remembers share one commit (`landing`). A retry of the same
fact within the same minute (a client that lost the answer to a killed call)
finds the entry already in the buffer and returns it instead of adding it
again. A write that fails with an error rather than a crash is undone, so the
call leaves both files as they were. Trimming (consolidation) also lives
here: an entry never leaves the buffer before the archive holds it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from substrate.config.settings import Settings
from substrate.config.tiers import is_memory_enabled
from substrate.errors import InvalidInputError, MemoryDisabledError
from substrate.intake.buffer import (
    HELD,
    BufferEntry,
    buffer_preamble,
    format_buffer,
    format_entry,
    parse_buffer,
    plausible_moment,
    with_hints,
)
from substrate.intake.landing import Fact, land, recover_intake
from substrate.pages.slugs import validate_slug
from substrate.safety import journal
from substrate.safety.inputs import checked_text
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import read_text_snapshot, write_atomic

MAX_HINTS = 64


def remember(
    settings: Settings,
    text: str,
    hints: list[str] | None = None,
    now: datetime | None = None,
    source: str = "user",
    sources: tuple[int, ...] = (),
) -> BufferEntry:
    """Append one fact to the buffer and its day's archive; returns the stored entry.
    `now` backdates the entry (migrations), and the fact goes to that day's archive.
    `source` picks the scanner's policy and, when it is not the user's own words
    (`captured`: drawn from a conversation), travels with the fact as its provenance,
    with `sources`, the logged messages it was drawn from (its lineage)."""
    if not is_memory_enabled(settings.config):
        raise MemoryDisabledError("memory is disabled (memory.enabled = false); nothing was saved")
    checked_text(text, "text", settings.limits.fact_bytes, "fact_bytes")
    hints = hints or []
    if len(hints) > MAX_HINTS:
        raise InvalidInputError(f"at most {MAX_HINTS} hints per fact, got {len(hints)}")
    hint_slugs = [validate_slug(h.strip()) for h in hints]
    # A judgement on a person's words holds the fact for review instead of
    # refusing it (firm evidence still refuses). The learned detector is asked at
    # consolidation, not here: a cold remember loads no model.
    admitted = settings.scanner.admit(text, source, learned=source != "user")
    cleaned = admitted.text.strip()
    if not cleaned:
        raise InvalidInputError("text is empty; nothing was saved")
    moment = datetime.now(UTC) if now is None else plausible_moment(now, "at")
    stamped = moment.astimezone(UTC).replace(second=0, microsecond=0)
    body = with_hints(cleaned, hint_slugs)
    provenance = None if source == "user" else source
    verdict = admitted.verdict
    review, why = (f"{HELD}{verdict.held_rule}", verdict.detail) if verdict.held else (None, None)
    lineage = sources if provenance is not None else ()
    return land(settings, Fact(stamped, body, provenance, review, why, sources=lineage))


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
            lead = "" if not archive or archive.endswith("\n") else "\n"
            text = archive + lead if archive else f"# Archive {day}\n\n"
            text += "".join(
                format_entry(e.at, e.text, e.source, e.review, e.sources) for e in missing
            )
            write_atomic(path, text, expected=snap)
            added += len(missing)
    return added


def archive_fact(settings: Settings, at: datetime, text: str, fact_id: str) -> None:
    """A fact that reached a page without passing the buffer (a correction): its
    day's archive holds it too, so the archive stays every fact ever stated."""
    with hold_lock(settings.workspace.buffer_lock_path, purpose="buffer"):
        reconcile_archive(settings, [BufferEntry(fact_id, at, text)])


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


@contextmanager
def holding_buffer(settings: Settings) -> Iterator[None]:
    """The buffer lock, with a half-landed remember finished first: what a change
    that takes entries out (`buffer_without`) holds until it commits."""
    with hold_lock(settings.workspace.buffer_lock_path, purpose="buffer"):
        recover_intake(settings)
        yield


def buffer_without(
    settings: Settings, ids: set[str]
) -> tuple[journal.Replace | None, list[BufferEntry]]:
    """Under `holding_buffer`: the step that takes these entries out of the buffer
    (for a change that must land with other files: a forget), and the entries.
    The archive is completed first, as for a trim."""
    ws = settings.workspace
    buffer, snapshot = read_text_snapshot(ws.buffer_path)
    entries = parse_buffer(buffer)
    leaving = [e for e in entries if e.id in ids]
    if not leaving:
        return None, []
    reconcile_archive(settings, leaving)
    kept = format_buffer(buffer_preamble(buffer), [e for e in entries if e.id not in ids])
    return journal.Replace(ws.buffer_path, kept.encode("utf-8"), snapshot), leaving


def read_buffer(settings: Settings) -> list[BufferEntry]:
    text, _ = read_text_snapshot(settings.workspace.buffer_path)
    return parse_buffer(text)
