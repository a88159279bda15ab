"""The derived database caught up with the transcripts, and an older
database's log written out as transcripts.

`sync` reads each transcript from where the database last stopped (the
`transcripts` table keeps the offset) and applies its records, each
idempotent (`INSERT OR IGNORE`, updates keyed by the record's own ids and
times): a database that was deleted is rebuilt whole, one that fell behind
(a writer killed between its append and its commit) catches up, and running
it twice changes nothing.

`export_legacy` is for a workspace whose log predates the transcripts: its
`sessions.sqlite` was the only copy, so its rows are written out as
transcripts once, before the database is rebuilt from them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.sessions.text import normalize
from substrate.sessions.transcripts import (
    Record,
    append_records,
    read_records,
    transcript_files,
    transcript_path,
)


def sync(db: sqlite3.Connection, workspace: Workspace) -> int:
    """Apply every transcript record the database has not read; how many.
    Call inside a write transaction."""
    seen = {str(n): int(o) for n, o in db.execute("SELECT name, offset FROM transcripts")}
    applied = 0
    for path, size in transcript_files(workspace):
        start = seen.get(path.name, 0)
        if size <= start:
            continue
        records, end = read_records(path, start)
        session = _session_of(db, path.name, records)
        for record in records:
            applied += apply_record(db, session, record)
        if session is not None:
            db.execute(
                "INSERT INTO transcripts(name, session_id, offset) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET offset = excluded.offset",
                (path.name, session, end),
            )
    return applied


def _session_of(db: sqlite3.Connection, name: str, records: list[Record]) -> str | None:
    row = db.execute("SELECT session_id FROM transcripts WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return str(row[0])
    first = next((r for r in records if "session" in r), None)
    return str(first["session"]) if first is not None else None


def apply_record(db: sqlite3.Connection, session: str | None, record: Record) -> int:
    """Apply one record of `session`'s transcript; 1 when it changed a row."""
    if session is None:
        return 0
    if "session" in record:
        cur = db.execute(
            "INSERT OR IGNORE INTO sessions(id, parent_id, started) VALUES (?, ?, ?)",
            (session, record.get("parent"), float(record.get("started", 0.0))),
        )
        title = record.get("title")
        if isinstance(title, str) and title.strip():
            db.execute(
                "INSERT OR REPLACE INTO titles(session_id, title) VALUES (?, ?)", (session, title)
            )
    elif "message" in record:
        cur = db.execute(
            "INSERT OR IGNORE INTO messages(id, session_id, role, text, folded, at, direct)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                int(record["message"]),
                session,
                str(record["role"]),
                str(record["text"]),
                normalize(str(record["text"])),
                float(record["at"]),
                int(bool(record.get("direct"))),
            ),
        )
        if cur.rowcount:
            db.execute("UPDATE sessions SET messages = messages + 1 WHERE id = ?", (session,))
    elif "end" in record:
        cur = _ended(db, session, record)
    elif "finalized" in record:
        cur = db.execute(
            "UPDATE finalizations SET status = ?, code = ?, attempts = ?, lease_until = NULL,"
            " updated = ? WHERE session_id = ? AND created = ?",
            (
                str(record["finalized"]),
                record.get("code"),
                int(record.get("attempts", 0)),
                float(record["at"]),
                session,
                float(record["end_at"]),
            ),
        )
    elif "captured" in record:
        cur = db.execute(
            "INSERT INTO capture_cursors(session_id, cursor, updated) VALUES (?, ?, ?)"
            " ON CONFLICT(session_id) DO UPDATE SET cursor = MAX(cursor, excluded.cursor),"
            " updated = excluded.updated",
            (session, int(record["captured"]), float(record["at"])),
        )
    else:
        return 0
    return 1 if cur.rowcount else 0


def _ended(db: sqlite3.Connection, session: str, record: Record) -> Any:
    at = float(record["at"])
    db.execute(
        "UPDATE sessions SET ended = ?, end_reason = ? WHERE id = ?",
        (at, str(record["end"]), session),
    )
    return db.execute(
        "INSERT OR IGNORE INTO finalizations(session_id, reason, cutoff_count,"
        " cutoff_message_id, status, created, updated) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
        (session, str(record["end"]), int(record["count"]), int(record["cutoff"]), at, at),
    )


def export_legacy(old: Path, workspace: Workspace) -> int:
    """Write a pre-transcript database's log out as transcripts (sessions,
    messages, each ending with its finalization's outcome, capture cursors);
    how many sessions were written."""
    db = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
    try:
        sessions = db.execute(
            "SELECT id, parent_id, started, ended, end_reason FROM sessions ORDER BY started"
        ).fetchall()
        for sid, parent, started, _ended, _reason in sessions:
            append_records(transcript_path(workspace, str(sid)), _legacy(db, sid, parent, started))
    finally:
        db.close()
    return len(sessions)


def _legacy(db: sqlite3.Connection, sid: str, parent: str | None, started: float) -> list[Record]:
    records: list[Record] = [{"session": sid, "parent": parent, "started": started}]
    for i, role, text, at, direct in db.execute(
        "SELECT id, role, text, at, direct FROM messages WHERE session_id = ? ORDER BY id", (sid,)
    ):
        records.append({"message": i, "role": role, "text": text, "at": at, "direct": bool(direct)})
    for reason, count, cutoff, status, attempts, code, created, updated in db.execute(
        "SELECT reason, cutoff_count, cutoff_message_id, status, attempts, code, created,"
        " updated FROM finalizations WHERE session_id = ? ORDER BY id",
        (sid,),
    ):
        records.append({"end": reason, "at": created, "cutoff": cutoff, "count": count})
        if status in ("done", "failed", "skipped"):
            records.append(
                {
                    "finalized": status,
                    "code": code,
                    "attempts": attempts,
                    "at": updated,
                    "end_at": created,
                }
            )
    for cursor, updated in db.execute(
        "SELECT cursor, updated FROM capture_cursors WHERE session_id = ?", (sid,)
    ):
        records.append({"captured": cursor, "at": updated})
    return records


def resync_transcript(db: sqlite3.Connection, workspace: Workspace, path: Path) -> None:
    """One transcript derived again from scratch (it was rewritten: a forget),
    its session's rows replaced by what the file now holds; a file that is gone
    takes its session's rows with it. Call inside a write transaction."""
    row = db.execute("SELECT session_id FROM transcripts WHERE name = ?", (path.name,)).fetchone()
    records, end = read_records(path) if path.exists() else ([], 0)
    session = str(row[0]) if row is not None else _session_of(db, path.name, records)
    db.execute("DELETE FROM transcripts WHERE name = ?", (path.name,))
    if session is None:
        return
    db.execute("DELETE FROM messages WHERE session_id = ?", (session,))
    db.execute("UPDATE sessions SET messages = 0 WHERE id = ?", (session,))
    if not records:
        for table in ("capture_cursors", "finalizations"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session,))
        db.execute(
            "DELETE FROM sessions WHERE id = ?"
            " AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = sessions.id)",
            (session,),
        )
        return
    for record in records:
        apply_record(db, session, record)
    db.execute(
        "INSERT INTO transcripts(name, session_id, offset) VALUES (?, ?, ?)",
        (path.name, session, end),
    )
