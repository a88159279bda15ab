"""Profile lines waiting for the person: `memory/profile/pending.jsonl`.

A line that asks the assistant to act (`actions.asks_action`) is written to a
trusted file only once the person confirms it. From MCP, promotion or
curation, or from an add with nobody at a terminal, it is parked here, with
where it would go, through what it came and why it waits. `memory profile
pending` and `GET /v1/profile/pending` list them; `memory profile confirm ID`
(asking on a terminal) and the web tab's Profile panel write one; a forget of
its text takes it out. The file holds the person's words, so it lives under
`memory/` with the profile, and every reader goes through this module.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from substrate.config import Settings, Workspace
from substrate.errors import MemoryServiceError, NotFoundError
from substrate.safety import hold_lock, read_text_file, write_atomic

FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class PendingLine:
    id: str
    at: float
    file: str
    text: str
    via: str
    reason: str
    sessions: tuple[str, ...] = ()  # what it was learned from: a forget follows it

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "sessions": list(self.sessions)}


def pending_path(ws: Workspace) -> Path:
    return ws.memory_dir / "profile" / "pending.jsonl"


def read_pending(ws: Workspace) -> list[PendingLine]:
    """The parked lines, oldest first (a line that does not read is skipped)."""
    try:
        text = read_text_file(pending_path(ws), FILE_BYTES) or ""
    except (OSError, MemoryServiceError):
        return []
    out = []
    for line in text.splitlines():
        try:
            row = json.loads(line)
            out.append(PendingLine(**{**row, "sessions": tuple(row.get("sessions", ()))}))
        except (ValueError, TypeError, AttributeError):
            continue
    return out


def park(
    settings: Settings,
    file: str,
    text: str,
    via: str,
    reason: str,
    sessions: tuple[str, ...] = (),
) -> PendingLine:
    """Park `text` for `file` (`sessions`: the conversations it was learned
    from); the same line parked again is the one already there."""
    ws = settings.workspace
    key = hashlib.sha256(f"{file}\n{' '.join(text.split())}".encode()).hexdigest()[:12]
    line = " ".join(text.split())
    row = PendingLine(f"l-{key}", time.time(), file, line, via, reason, tuple(sessions))
    with _lock(ws):
        rows = read_pending(ws)
        found = next((r for r in rows if r.id == row.id), None)
        if found is not None:
            return found
        _write(ws, [*rows, row])
    return row


def take(settings: Settings, line_id: str) -> PendingLine:
    """The parked line, taken out (a confirm writes it; a forget drops it)."""
    ws = settings.workspace
    with _lock(ws):
        rows = read_pending(ws)
        found = next((r for r in rows if r.id == line_id), None)
        if found is None:
            raise NotFoundError(f"no pending profile line {line_id!r} (`memory profile pending`)")
        _write(ws, [r for r in rows if r.id != line_id])
    return found


def drop_text(settings: Settings, text: str) -> list[str]:
    """Every parked line of these words taken out (a forget); their ids."""
    ws = settings.workspace
    wanted = " ".join(text.removeprefix("- ").split()).casefold()
    with _lock(ws):
        rows = read_pending(ws)
        gone = [r for r in rows if r.text.casefold() == wanted or r.id == text.strip()]
        if gone:
            _write(ws, [r for r in rows if r not in gone])
    return [r.id for r in gone]


def drop_sessions(settings: Settings, sessions: Collection[str]) -> list[str]:
    """Every parked line learned from these conversations taken out (a forget of
    a session, or of a message in it); their ids."""
    ws = settings.workspace
    if not sessions or not pending_path(ws).exists():
        return []
    with _lock(ws):
        rows = read_pending(ws)
        gone = [r for r in rows if set(r.sessions) & set(sessions)]
        if gone:
            _write(ws, [r for r in rows if r not in gone])
    return [r.id for r in gone]


def _write(ws: Workspace, rows: list[PendingLine]) -> None:
    body = "".join(json.dumps(r.as_json(), ensure_ascii=False) + "\n" for r in rows)
    write_atomic(pending_path(ws), body)


def _lock(ws: Workspace) -> Any:
    return hold_lock(ws.state_dir / "profile-pending.lock", purpose="pending profile lines")
