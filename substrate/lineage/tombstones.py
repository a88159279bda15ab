"""Owns `memory/forgotten/`: what was forgotten, kept without its words.

A forget erases the words from every file the product writes; what stays is
a tombstone per forgotten item: its id, a keyed fingerprint of its words
(`fingerprints`), when, through which surface (`cli`, `http`, `mcp`, `web`,
or `cascade` for what a forget took along) and the forget it belonged to
(`order`). Tombstones let a repeated forget answer "already forgotten", keep
a re-imported export from bringing a forgotten message back, let promotion
refuse to bring back a line the person forgot, and let `doctor` prove that no
live file still holds a forgotten fact. They are authority (they cannot be
rebuilt), so they live under `memory/`.

Each forget writes its own file, `<stamp>-<order>-<part>.jsonl`, created
whole (never appended to), inside the same journaled change as the files it
erased from: a kill leaves the tombstone and the change both or neither, and
two forgets never write one file. Rows, one JSON object a line:

    {"kind": "fact", "id": "3f2a9c1b7d4e", "page": "me/contact", "fingerprint": "h:…",
     "at": 1796454518.4, "via": "cli", "order": "o-…"}
    {"kind": "message", "id": 1796419558152280, "session": "chat-a", "fingerprint": "h:…", …}
    {"kind": "session", "session": "chat-a", "messages": [1796419558152280, …], …}
    {"kind": "redaction", "id": 1796…, "session": "chat-a", "fingerprint": "h:…",
     "fact": "3f2a…", …}
    {"kind": "promotion", "id": "p-…", "fingerprint": "h:…", …}
    {"kind": "candidate", "id": "c-…", "fingerprint": "h:…", …}
    {"kind": "line", "file": "USER.md", "fingerprint": "h:…", …}
    {"kind": "page", "fingerprint": "h:…", …}   (a page the forget left empty and removed)

A `redaction` is a message that stays, with a forgotten fact's words cut out
of it: its fingerprint is the message as it was, so the same message
imported again is recognised.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError
from substrate.safety import (
    MAX_FILE_BYTES,
    FileSnapshot,
    journal,
    read_regular_file,
    unlinked_folder,
)

FOLDER = "forgotten"
SUFFIX = ".jsonl"
KINDS = ("fact", "message", "session", "redaction", "promotion", "candidate", "line", "page")
Row = dict[str, Any]


def tombstones_dir(workspace: Workspace) -> Path:
    return workspace.memory_dir / FOLDER


@dataclass
class Tombstones:
    """Every tombstone of a workspace, indexed the ways readers ask."""

    rows: list[Row] = field(default_factory=list)
    facts: dict[str, Row] = field(default_factory=dict)
    fingerprints: dict[str, Row] = field(default_factory=dict)  # fact, line, promotion, …
    messages: dict[int, Row] = field(default_factory=dict)
    message_prints: set[str] = field(default_factory=set)  # forgotten or redacted messages
    message_words: set[str] = field(default_factory=set)  # the same, by words and time window
    message_pieces: set[str] = field(default_factory=set)  # their words' prefixes and suffixes
    sessions: dict[str, Row] = field(default_factory=dict)
    records: dict[str, Row] = field(default_factory=dict)  # promotion and candidate ids

    def add(self, row: Row) -> None:
        self.rows.append(row)
        kind, ident, print_ = row.get("kind"), row.get("id"), row.get("fingerprint")
        if kind == "fact" and isinstance(ident, str):
            self.facts.setdefault(ident, row)
        if kind in ("message", "redaction"):
            if kind == "message" and isinstance(ident, int):
                self.messages.setdefault(ident, row)
            if isinstance(print_, str):
                self.message_prints.add(print_)
            if isinstance(row.get("words"), str):
                self.message_words.add(row["words"])
            pieces = row.get("pieces")
            if isinstance(pieces, list):
                self.message_pieces.update(p for p in pieces if isinstance(p, str))
        elif isinstance(print_, str):
            self.fingerprints.setdefault(print_, row)
        if kind == "session" and isinstance(row.get("session"), str):
            self.sessions.setdefault(row["session"], row)
        if kind in ("promotion", "candidate") and isinstance(ident, str):
            self.records.setdefault(ident, row)

    def about_session(self, session_id: str) -> list[Row]:
        return [
            r
            for r in self.rows
            if r.get("session") == session_id and r.get("kind") in ("session", "message")
        ]

    @property
    def message_ids(self) -> set[int]:
        return set(self.messages)


_CACHE: dict[Path, dict[str, tuple[int, int, list[Row]]]] = {}
_GUARD = threading.Lock()


def read_tombstones(workspace: Workspace) -> Tombstones:
    """Every tombstone, oldest file first (a file is read again only when it
    changed: a forget adds files, never edits one)."""
    folder = tombstones_dir(workspace)
    out = Tombstones()
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except FileNotFoundError:
        return out
    with _GUARD:
        known = _CACHE.setdefault(folder, {})
        seen: dict[str, tuple[int, int, list[Row]]] = {}
        for entry in entries:
            if not entry.name.endswith(SUFFIX) or not entry.is_file(follow_symlinks=False):
                continue
            st = entry.stat(follow_symlinks=False)
            held = known.get(entry.name)
            if held is None or held[:2] != (st.st_size, st.st_mtime_ns):
                held = (st.st_size, st.st_mtime_ns, _parse(Path(entry.path)))
            seen[entry.name] = held
        _CACHE[folder] = seen
    for row in sorted((r for _, _, rows in seen.values() for r in rows), key=_when_written):
        out.add(row)
    return out


def _when_written(row: Row) -> float:
    at = row.get("at")
    return float(at) if isinstance(at, int | float) else 0.0


def _parse(path: Path) -> list[Row]:
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except (OSError, InvalidInputError):
        return []
    rows = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("kind") in KINDS:
            rows.append(row)
    return rows


def tombstone_path(workspace: Workspace, order: str, part: str, at: float) -> Path:
    stamp = datetime.fromtimestamp(at, UTC).strftime("%Y%m%dT%H%M%S")
    folder = unlinked_folder(workspace.memory_dir, tombstones_dir(workspace))
    return folder / f"{stamp}-{order}-{part}{SUFFIX}"


def tombstone_step(
    workspace: Workspace, order: str, part: str, at: float, rows: Iterable[Row]
) -> journal.Replace | None:
    """The step that creates this forget's tombstone file for `part`; None when
    there is nothing to record or the file exists (a finished forget run again)."""
    written = list(rows)
    if not written:
        return None
    path = tombstone_path(workspace, order, part, at)
    if path.exists():
        return None
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in written)
    return journal.Replace(path, data.encode("utf-8"), FileSnapshot(path, None, 0, 0))


def when(row: Row) -> str:
    """A tombstone's day, as an answer says it ("already forgotten on …")."""
    at = row.get("at")
    if not isinstance(at, int | float):
        return "an earlier day"
    return datetime.fromtimestamp(at, UTC).date().isoformat()
