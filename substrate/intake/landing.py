"""How remembered facts land: buffer and archive together, in group commits.

Every fact goes into the buffer (rewritten atomically: readers see it whole or
not at all) and onto its day's archive (appended) as one journaled change
(`safety.journal`): a kill at any point leaves the fact in both files or in
neither, and the next writer under the buffer lock finishes what a killed
one left. A change costs several fsyncs, and writers take the buffer lock in
turn, so under many concurrent remembers each would wait out every other's
commit, and a burst would pass the lock from thread to thread (each hand-off
a wait for a slice of a contended interpreter). Instead a remember queues its
fact; one queued writer leads, landing every fact queued by then in one commit
under the lock and settling each (group commit). Thirty concurrent remembers
cost one or two commits, and each is answered only once its fact is durable.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from substrate.config.settings import Settings
from substrate.intake.buffer import BufferEntry, format_entry, next_entry, parse_buffer
from substrate.safety import journal
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import (
    last_byte,
    read_text_snapshot,
    sweep_stale_temps,
    unlinked_folder,
)

BUFFER_HEADING = "# Buffer\n\n"
SWEEP_EVERY_S = 60.0


@dataclass
class Fact:
    """A scanned fact waiting for its commit."""

    at: datetime
    text: str
    source: str | None
    review: str | None = None  # `held:RULE` when the scanner holds it for review
    why: str | None = None  # the scanner's detail, for the answer
    sources: tuple[int, ...] = ()  # the messages a captured fact was drawn from
    wake: threading.Event = field(default_factory=threading.Event)
    leads: bool = False
    entry: BufferEntry | None = None
    error: BaseException | None = None

    @property
    def settled(self) -> bool:
        return self.entry is not None or self.error is not None


_QUEUES: dict[str, list[Fact]] = {}
_LEADING: set[str] = set()
_GUARD = threading.Lock()
_SWEPT: dict[str, float] = {}


def land(settings: Settings, fact: Fact) -> BufferEntry:
    """Queue `fact` and wait until it has landed; its entry, or the error its
    commit met. One queued fact at a time leads: it commits everything queued
    by then (its own fact first among them), settles each, and hands the lead
    to the oldest fact still queued. Followers only wait on their event, so a
    burst of writers never queues on the lock file one by one."""
    key = str(settings.workspace.buffer_path)
    with _GUARD:
        _QUEUES.setdefault(key, []).append(fact)
        if key not in _LEADING:
            _LEADING.add(key)
            fact.leads = True
    if not fact.leads:
        fact.wake.wait()
    if not fact.settled:  # woken to lead
        _lead(settings, key)
    if fact.error is not None:
        raise fact.error
    assert fact.entry is not None
    return fact.entry


def _lead(settings: Settings, key: str) -> None:
    with _GUARD:
        batch, _QUEUES[key] = _QUEUES.get(key, []), []
    try:
        with hold_lock(settings.workspace.buffer_lock_path, purpose="buffer"):
            recover_intake(settings)
            entries = _write(settings, batch)
        for fact, entry in zip(batch, entries, strict=True):
            fact.entry = entry
    except BaseException as exc:  # noqa: BLE001 - raised in each writer's own thread
        for fact in batch:
            fact.error = exc
    finally:
        with _GUARD:
            waiting = _QUEUES.get(key, [])
            if waiting:
                waiting[0].leads = True
                waiting[0].wake.set()
            else:
                _LEADING.discard(key)
        for fact in batch:
            fact.wake.set()


def _write(settings: Settings, batch: list[Fact]) -> list[BufferEntry]:
    """Land `batch` in one journaled change; each fact's entry, in order (a
    fact already in the buffer, retried within its minute, gets that entry)."""
    ws = settings.workspace
    buffer, snapshot = read_text_snapshot(ws.buffer_path)
    entries = parse_buffer(buffer)
    new_buffer = buffer or BUFFER_HEADING
    archives: dict[Path, str] = {}
    landed: list[BufferEntry] = []
    for fact in batch:
        earlier = next(
            (e for e in entries if (e.at, e.text, e.source) == (fact.at, fact.text, fact.source)),
            None,
        )
        if earlier is not None:
            landed.append(earlier)
            continue
        entry = replace(
            next_entry(entries, fact.at, fact.text, fact.source, fact.sources),
            review=fact.review,
            why=fact.why,
        )
        entries.append(entry)
        landed.append(entry)
        record = format_entry(fact.at, fact.text, fact.source, fact.review, entry.sources)
        new_buffer = _appended(new_buffer, record)
        path = archive_path(settings, fact.at)
        if path not in archives:
            archives[path] = _archive_lead(path, f"# Archive {fact.at:%Y-%m-%d}\n\n")
        archives[path] += record
    if not archives:
        return landed
    steps: list[journal.Step] = [
        journal.Replace(ws.buffer_path, new_buffer.encode("utf-8"), snapshot)
    ]
    steps += [journal.Append(path, text.encode("utf-8")) for path, text in archives.items()]
    journal.commit(intake_journal(settings), steps)
    return landed


def intake_journal(settings: Settings) -> Path:
    return settings.workspace.memory_dir / ".intake.journal"


def recover_intake(settings: Settings) -> list[str]:
    """Finish a remember or a trim a killed process left half done (call under
    the buffer lock); the temp files killed writers left are swept too, at most
    once a minute (a listing of two folders is not free under load)."""
    ws = settings.workspace
    key = str(ws.memory_dir)
    if time.monotonic() >= _SWEPT.get(key, 0.0):
        _SWEPT[key] = time.monotonic() + SWEEP_EVERY_S
        sweep_stale_temps([ws.memory_dir, ws.archive_dir])
    return journal.recover(intake_journal(settings))


def finish_intake(settings: Settings) -> list[str]:
    """`recover_intake` under the buffer lock: what `memory doctor --fix` runs."""
    with hold_lock(settings.workspace.buffer_lock_path, purpose="buffer"):
        return recover_intake(settings)


def archive_path(settings: Settings, at: datetime) -> Path:
    ws = settings.workspace
    return unlinked_folder(ws.memory_dir, ws.archive_dir) / f"{at.date().isoformat()}.md"


def _archive_lead(path: Path, heading: str) -> str:
    """What must precede an entry appended to `path`: its heading when the file is
    new or empty, a line break when it does not end in one (its last byte read)."""
    last = last_byte(path)
    return heading if last is None else ("" if last == b"\n" else "\n")


def _appended(existing: str, entry: str) -> str:
    return existing + ("" if existing.endswith("\n") else "\n") + entry
