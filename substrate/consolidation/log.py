"""Where each entry went and why, kept for `memory consolidate --explain ID`.

A journal of one JSON line per decided entry, `memory/consolidation-log.jsonl`:
it cannot be recomputed (the reasons of a run are gone with the run), so it is
authority beside the pages, not derived state (a log left under `.substrate/`
by an earlier release is moved there on the next run). Compacted to its
newest `KEEP` lines once it doubles that.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.outcome import EntryOutcome
from substrate.consolidation.views import pages_after, view_steps
from substrate.errors import InvalidInputError
from substrate.pages import load_page_index
from substrate.safety import (
    MAX_FILE_BYTES,
    append_bytes,
    hold_lock,
    journal,
    read_file_at,
    read_text_file,
    read_text_snapshot,
    write_atomic,
)

KEEP = 5000


def log_path(settings: Settings) -> Path:
    path = settings.workspace.memory_dir / "consolidation-log.jsonl"
    earlier = settings.workspace.state_dir / "consolidation-log.jsonl"
    if not path.exists() and earlier.is_file():
        os.replace(earlier, path)
    return path


def record(
    settings: Settings,
    at: float,
    planner: str,
    entries: list[EntryOutcome],
    hashes: dict[str, str] | None = None,
) -> None:
    """The run's decisions; `hashes`: each written page's content hash after the
    run, kept on its rows so a later change nobody logged reads as a hand edit."""
    sha = hashes or {}
    append_rows(
        settings,
        [
            {"at": at, "planner": planner, **e.as_json(), **_sha(sha.get(e.page or ""))}
            for e in entries
        ],
    )


def _sha(value: str | None) -> dict[str, str]:
    return {"sha256": value} if value else {}


def record_change(settings: Settings, row: dict[str, Any]) -> None:
    """One change made by hand or on request (`op`: forget, correct, write_page,
    edit_page, move_page, delete_page, restore_page, pin, hand_edit), beside the
    filing decisions, so `memory history` tells every change in one order."""
    append_rows(settings, [row])


def changes_journal(settings: Settings) -> Path:
    """The journal of a change of memory/ and the history row that tells it:
    under memory/ beside the other journals, since a half-made change it
    describes cannot be rebuilt if `.substrate/` is deleted."""
    return settings.workspace.memory_dir / ".changes.journal"


def commit_change(
    settings: Settings,
    steps: Sequence[journal.Step],
    rows: list[dict[str, Any]],
    rewrite_log: Callable[[str], str] | None = None,
    present: Collection[str] | None = None,
) -> None:
    """Make a change of memory/ (`steps`: a page replaced, moved into the trash…)
    and log the rows that tell it as one journaled change: a kill anywhere
    leaves both or, once the next writer rolls it forward, both — never a
    history of a move that did not happen, nor a delete history lost. The
    views derived from the pages (`views.view_steps`) join the same change, so
    no view outlives a forget, a correction or a delete. Call under the
    consolidation lock. `rewrite_log`: the log's text as it must be after the
    change (a forget takes words out of earlier rows), making the log one
    replaced file of the change instead of an appended one. `present`: the
    pages' slugs before the change, when the caller has just read them under
    the lock."""
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    with _log_lock(settings):
        journal.recover(changes_journal(settings))
        if present is None:
            present = set(load_page_index(settings.workspace).entries)
        views = view_steps(settings, present, pages_after(settings, steps))
        step: journal.Step = journal.Append(log_path(settings), lines.encode("utf-8"))
        if rewrite_log is not None:
            step = _rewritten_log(settings, rewrite_log, rows) or step
        journal.commit(changes_journal(settings), [*steps, *views, step])


def _rewritten_log(
    settings: Settings, rewrite: Callable[[str], str], rows: list[dict[str, Any]]
) -> journal.Replace | None:
    """The log as `rewrite` leaves its text, `rows` appended: one Replace step
    (None when the rewrite changes nothing: the rows are appended)."""
    path = log_path(settings)
    text, snapshot = read_text_snapshot(path)
    after = rewrite(text)
    if after == text:
        return None
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return journal.Replace(path, (after + lines).encode("utf-8"), snapshot)


def recover_changes(settings: Settings) -> list[str]:
    """Finish a change a killed writer left half made (under the consolidation
    lock): what `commit_change` journaled lands whole."""
    with _log_lock(settings):
        return journal.recover(changes_journal(settings))


def _log_lock(settings: Settings) -> AbstractContextManager[object]:
    return hold_lock(settings.workspace.state_dir / "consolidation-log.lock", purpose="log")


def append_rows(settings: Settings, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    path = log_path(settings)
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    with _log_lock(settings):
        size = append_bytes(path, lines.encode("utf-8")) + len(lines.encode("utf-8"))
        if size > 2 * KEEP * 200:  # rough bytes per line
            kept = (read_text_file(path) or "").splitlines(keepends=True)[-KEEP:]
            write_atomic(path, "".join(kept))


def decisions(settings: Settings, entry_id: str) -> list[dict[str, Any]]:
    """Every logged decision about `entry_id`, oldest first."""
    return [row for row in rows(settings) if row.get("id") == entry_id]


def rows(settings: Settings) -> list[dict[str, Any]]:
    """Every logged row, oldest first (a line torn by a crash is skipped). The
    log only grows between compactions, so a process reads only what was
    appended since it last read, after checking that the bytes it read last
    are still there (a compaction makes a new file, and a hand edit changes
    them: either is read whole); every maintain after a forget asks, and
    5,000 rows parsed each time cost it."""
    path = log_path(settings)
    with _ROWS_LOCK:
        seen = _ROWS.get(path)
    try:
        found = _read_on(path, seen) if seen is not None else None
        if found is None:
            found = _read_on(path, _Seen(0, 0, b"", []))
    except (OSError, InvalidInputError):
        return []
    assert found is not None
    with _ROWS_LOCK:
        _ROWS[path] = found
    return list(found.rows)


@dataclass(frozen=True)
class _Seen:
    """How far a process read the log: the inode, the offset after the last
    whole line, the bytes just before it, and the rows so far."""

    ino: int
    offset: int
    tail: bytes
    rows: list[dict[str, Any]]


_ROWS: dict[Path, _Seen] = {}
_ROWS_LOCK = threading.Lock()
_TAIL = 64


def _read_on(path: Path, seen: _Seen) -> _Seen | None:
    """`seen` extended by what was appended since; None when the file is no
    longer the one `seen` describes."""
    start = max(0, seen.offset - len(seen.tail))
    data, ino, _ = read_file_at(path, MAX_FILE_BYTES, start)
    if seen.offset and (ino != seen.ino or not data.startswith(seen.tail)):
        return None
    new = data[len(seen.tail) if seen.offset else 0 :]
    whole = new[: new.rfind(b"\n") + 1]
    offset = seen.offset + len(whole)
    kept = (seen.tail + whole)[-_TAIL:]
    return _Seen(ino, offset, kept, seen.rows + _parsed(whole))


def _parsed(data: bytes) -> list[dict[str, Any]]:
    found = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            found.append(row)
    return found


def moved_pages(settings: Settings) -> dict[str, str]:
    """Where each moved slug went last (`from` -> final `to`, through later moves):
    a fact still in the buffer hinted at the old slug is filed on the page under
    its new name, never on a new page recreating the old one."""
    moved = {
        str(r["from"]): str(r["to"])
        for r in rows(settings)
        if r.get("op") == "move_page" and isinstance(r.get("from"), str)
    }
    final = {}
    for start in moved:
        to, seen = moved[start], {start}
        while to in moved and to not in seen:
            seen.add(to)
            to = moved[to]
        final[start] = to
    return final
