"""Owns `memory/conversations/`: the conversation log's authority, one JSON
Lines file per session, appended to (and rewritten only by a forget:
`erasure`), readable with any text tool.

    {"session": "s1", "parent": null, "started": 1796170000.0, "title": "Moving house"}
    {"message": 41, "role": "user", "text": "I moved to Porto.", "at": 1796170000.0, "direct": true}
    {"end": "exit", "at": 1796170100.0, "finalization": 7, "cutoff": 41, "count": 1}
    {"finalized": 7, "status": "done", "code": null, "at": 1796170200.0}
    {"captured": 41, "at": 1796170300.0}

(`title`, optional: the name an imported conversation had in its export.)
`sessions.sqlite` under `.substrate/` is derived from these files (search,
counts, the finalization queue) and rebuilt from them whenever it is missing
or behind (`sessions.rebuild`); message and finalization ids are written here
so a rebuild gives every row its old id back (curation's evidence names
message ids). Records are appended inside the log's SQLite write transaction,
which serialises every writer of the workspace; a kill mid-append leaves at
most a torn last line, which readers skip and the next append cuts off.

A file is named for its session: the id's safe characters (at most 60) and
eight hex digits of its hash, so any id maps to one file and a listing is
still readable.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.safety import (
    MAX_FILE_BYTES,
    append_bytes,
    last_byte,
    read_regular_file,
    surrogate_offset,
    unlinked_folder,
    write_atomic,
)

SUFFIX = ".jsonl"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
Record = dict[str, Any]


def transcripts_dir(workspace: Workspace) -> Path:
    return unlinked_folder(workspace.memory_dir, workspace.memory_dir / "conversations")


def transcript_path(workspace: Workspace, session_id: str) -> Path:
    safe = "".join(c if c in _SAFE else "_" for c in session_id)[:60].strip(".") or "session"
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return transcripts_dir(workspace) / f"{safe}-{digest}{SUFFIX}"


def append_records(path: Path, records: list[Record]) -> None:
    """Append `records`, one line each, durably; a torn line a kill left at the
    end is cut off first, so it never fuses with what follows."""
    if not records:
        return
    tail = last_byte(path)
    if tail is not None and tail != b"\n":
        _cut_torn_tail(path)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    append_bytes(path, data.encode("utf-8"))


def _cut_torn_tail(path: Path) -> None:
    data = read_regular_file(path, MAX_FILE_BYTES)
    os.truncate(path, data.rfind(b"\n") + 1)


def read_records(path: Path, start: int = 0) -> tuple[list[Record], int]:
    """(the whole, valid records from byte `start` on, the offset after the last
    whole one): a torn last line is left out, to be read once it is whole, and
    a line that is not a valid record (a hand edit, an old writer's bad value)
    is skipped, never fatal: `bad_lines` names it for `doctor`."""
    lines, end = _lines(path, start)
    return [record for _, record, problem in lines if problem is None], end


def bad_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, what is wrong) for each line of a transcript a reader skips."""
    return [(n, problem) for n, _, problem in _lines(path, 0)[0] if problem is not None]


def _lines(path: Path, start: int) -> tuple[list[tuple[int, Record, str | None]], int]:
    data = read_regular_file(path, MAX_FILE_BYTES)
    end = data.rfind(b"\n") + 1
    first = data[:start].count(b"\n") + 1
    out: list[tuple[int, Record, str | None]] = []
    for n, line in enumerate(data[start:end].split(b"\n"), start=first):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            out.append((n, {}, "not JSON"))
            continue
        if not isinstance(record, dict):
            out.append((n, {}, "not a JSON object"))
            continue
        out.append((n, record, record_problem(record)))
    return out, max(end, start)


# Fields each kind of record must carry, with their types (a float field takes an int).
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "session": {"session": (str,), "started": (int, float)},
    "message": {"message": (int,), "role": (str,), "text": (str,), "at": (int, float)},
    "end": {"end": (str,), "at": (int, float), "count": (int,), "cutoff": (int,)},
    "finalized": {"finalized": (str,), "at": (int, float), "end_at": (int, float)},
    "captured": {"captured": (int,), "at": (int, float)},
}
_TIMES = frozenset({"at", "started", "end_at"})
# Times a reader can turn into a date: 1970 … 9999.
LATEST_EPOCH = 253_402_300_799.0


def record_problem(record: Record) -> str | None:
    """What makes `record` unreadable (None when it is a valid record, or one of a
    kind this version does not know, which readers ignore)."""
    kind = next((k for k in _FIELDS if k in record), None)
    if kind is None:
        return None
    for name, types in _FIELDS[kind].items():
        value = record.get(name)
        if isinstance(value, bool) or not isinstance(value, types):
            return f"{kind} record: {name} is missing or not {types[-1].__name__}"
        if name in _TIMES and not _a_time(value):
            return f"{kind} record: {name} = {value!r} is no time between 1970 and 9999"
        if isinstance(value, str) and surrogate_offset(value) is not None:
            return f"{kind} record: {name} is not valid UTF-8 text"
    title = record.get("title") if kind == "session" else None
    if title is not None and (not isinstance(title, str) or surrogate_offset(title) is not None):
        return "session record: title is not valid UTF-8 text"
    return None


def _a_time(value: Any) -> bool:
    try:
        return 0.0 <= float(value) <= LATEST_EPOCH  # NaN compares false
    except OverflowError:
        return False


def transcript_files(workspace: Workspace) -> Iterator[tuple[Path, int]]:
    """(path, size) of every transcript, in name order."""
    root = transcripts_dir(workspace)
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except FileNotFoundError:
        return
    for entry in entries:
        if entry.name.endswith(SUFFIX) and entry.is_file(follow_symlinks=False):
            yield Path(entry.path), entry.stat(follow_symlinks=False).st_size


def rewrite_without(path: Path, message_ids: set[int]) -> bool:
    """Rewrite a transcript without these messages (retention); False when no
    message is left in it, and the file is removed."""
    records, _ = read_records(path)
    kept = [r for r in records if r.get("message") not in message_ids]
    if not any("message" in r for r in kept):
        path.unlink(missing_ok=True)
        return False
    write_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
    return True
