"""`SessionLog`: sessions and their messages in SQLite, searchable by FTS5.

One connection per log, shared by the service's threads behind a lock (SQLite
serialises writers anyway, and a turn's append is one short transaction). A
session is created by its first message; a child session names its root
(`parent_id`), and a child of a child is refused, so "root sessions only"
is one column test."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError
from substrate.sessions.text import fts_query, normalize

ROLES = ("user", "assistant", "tool", "system")
END_REASONS = ("new", "reset", "exit", "idle", "one-shot")
SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_id TEXT REFERENCES sessions(id),
    started REAL NOT NULL,
    ended REAL,
    end_reason TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    folded TEXT NOT NULL,
    at REAL NOT NULL,
    direct INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_session ON messages(session_id, id);
CREATE INDEX IF NOT EXISTS messages_at ON messages(at);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    folded, content='messages', content_rowid='id', tokenize='unicode61'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, folded) VALUES (new.id, new.folded);
END;
CREATE TABLE IF NOT EXISTS finalizations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    cutoff_count INTEGER NOT NULL,
    cutoff_message_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until REAL,
    cursor INTEGER NOT NULL DEFAULT 0,
    code TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS finalizations_status ON finalizations(status, id);
CREATE TABLE IF NOT EXISTS capture_cursors (
    session_id TEXT PRIMARY KEY,
    cursor INTEGER NOT NULL,
    updated REAL NOT NULL
);
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, folded) VALUES ('delete', old.id, old.folded);
END;
"""


@dataclass(frozen=True)
class NewMessage:
    role: str
    text: str
    direct: bool


@dataclass(frozen=True)
class LoggedMessage:
    id: int
    session_id: str
    role: str
    text: str
    at: float
    direct: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "role": self.role,
            "text": self.text,
            "at": self.at,
            "direct": self.direct,
        }


@dataclass(frozen=True)
class SessionRow:
    id: str
    parent_id: str | None
    started: float
    ended: float | None
    end_reason: str | None
    messages: int

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parent_id": self.parent_id,
            "started": self.started,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "messages": self.messages,
        }


class SessionLog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE), for the modules of this room."""
        with self._write() as db:
            yield db

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._db.execute(sql, args).fetchall())

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def append(
        self, session_id: str, messages: list[NewMessage], now: float, parent_id: str | None = None
    ) -> list[int]:
        """Store `messages` in order (creating the session); their ids. All or none."""
        check_session_id(session_id)
        for i, m in enumerate(messages):
            if m.role not in ROLES:
                raise InvalidInputError(
                    f"messages[{i}].role: {m.role!r} is not one of {', '.join(ROLES)}"
                )
        with self._write() as db:
            self._ensure(db, session_id, parent_id, now)
            ids = []
            for m in messages:
                cur = db.execute(
                    "INSERT INTO messages(session_id, role, text, folded, at, direct)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (session_id, m.role, m.text, normalize(m.text), now, int(m.direct)),
                )
                ids.append(int(cur.lastrowid or 0))
            return ids

    def _ensure(
        self, db: sqlite3.Connection, session_id: str, parent_id: str | None, now: float
    ) -> None:
        row = db.execute("SELECT parent_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is not None:
            if parent_id is not None and row[0] != parent_id:
                raise InvalidInputError(
                    f"parent_id: session {session_id!r} already exists with parent {row[0]!r}"
                )
            return
        if parent_id is not None:
            check_session_id(parent_id)
            parent = db.execute(
                "SELECT parent_id FROM sessions WHERE id = ?", (parent_id,)
            ).fetchone()
            if parent is None:
                raise InvalidInputError(f"parent_id: no session {parent_id!r} in the log")
            if parent[0] is not None:
                raise InvalidInputError(
                    f"parent_id: {parent_id!r} is itself a child session; name its root"
                )
        db.execute(
            "INSERT INTO sessions(id, parent_id, started) VALUES (?, ?, ?)",
            (session_id, parent_id, now),
        )

    def end(self, session_id: str, reason: str, now: float) -> SessionRow:
        """End a session and, in the same transaction, queue its finalization
        with the cutoff it must read up to (a resumed session's later messages
        never change that audit)."""
        if reason not in END_REASONS:
            raise InvalidInputError(f"reason: {reason!r} is not one of {', '.join(END_REASONS)}")
        with self._write() as db:
            cur = db.execute(
                "UPDATE sessions SET ended = ?, end_reason = ? WHERE id = ?",
                (now, reason, session_id),
            )
            if cur.rowcount == 0:
                raise InvalidInputError(f"session {session_id!r} is not in the log")
            count, last = db.execute(
                "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM messages WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            db.execute(
                "INSERT INTO finalizations(session_id, reason, cutoff_count, cutoff_message_id,"
                " status, created, updated) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
                (session_id, reason, count, last, now, now),
            )
        found = self.session(session_id)
        assert found is not None
        return found

    def session(self, session_id: str) -> SessionRow | None:
        rows = self._sessions("WHERE s.id = ?", (session_id,))
        return rows[0] if rows else None

    def sessions(self, limit: int = 50) -> list[SessionRow]:
        """The newest sessions first."""
        return self._sessions("ORDER BY s.started DESC, s.id LIMIT ?", (limit,))

    def _sessions(self, tail: str, args: tuple[Any, ...]) -> list[SessionRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT s.id, s.parent_id, s.started, s.ended, s.end_reason,"
                " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)"
                f" FROM sessions s {tail}",
                args,
            ).fetchall()
        return [SessionRow(*row) for row in rows]

    def messages(self, session_id: str, limit: int | None = None) -> list[LoggedMessage]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? ORDER BY id LIMIT ?",
                (session_id, -1 if limit is None else limit),
            ).fetchall()
        return [_message(row) for row in rows]

    def search(
        self,
        phrases: list[str],
        *,
        root_only: bool = False,
        roles: tuple[str, ...] = ROLES,
        exclude_session: str | None = None,
        since: float | None = None,
        limit: int = 200,
        requires: list[str] | None = None,
    ) -> list[LoggedMessage]:
        """Messages holding any of `phrases` (and any of `requires`, when given),
        newest first. `root_only` leaves out child sessions (promotion's
        evidence never comes from them)."""
        match = fts_query(phrases, requires)
        if match is None:
            return []
        where = ["messages_fts MATCH ?"]
        args: list[Any] = [match]
        where.append(f"m.role IN ({','.join('?' * len(roles))})")
        args += list(roles)
        if root_only:
            where.append("s.parent_id IS NULL")
        if exclude_session is not None:
            where.append("m.session_id != ?")
            args.append(exclude_session)
        if since is not None:
            where.append("m.at > ?")
            args.append(since)
        sql = (
            f"SELECT {_prefixed('m')} FROM messages_fts"
            " JOIN messages m ON m.id = messages_fts.rowid"
            " JOIN sessions s ON s.id = m.session_id"
            f" WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, [*args, limit]).fetchall()
        return [_message(row) for row in rows]

    def prune(self, older_than: float) -> int:
        """Drop messages logged before `older_than` (retention), then sessions left
        with none; returns how many messages went."""
        with self._write() as db:
            gone = db.execute("DELETE FROM messages WHERE at < ?", (older_than,)).rowcount
            db.execute(
                "DELETE FROM sessions WHERE NOT EXISTS"
                " (SELECT 1 FROM messages m WHERE m.session_id = sessions.id)"
                " AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = sessions.id)"
                " AND started < ?",
                (older_than,),
            )
        return int(gone)

    def capture_cursor(self, session_id: str) -> int:
        """The last message id capture has read in this session (0: none)."""
        rows = self.query("SELECT cursor FROM capture_cursors WHERE session_id = ?", (session_id,))
        return int(rows[0][0]) if rows else 0

    def set_capture_cursor(self, session_id: str, cursor: int, now: float) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO capture_cursors(session_id, cursor, updated) VALUES (?, ?, ?)"
                " ON CONFLICT(session_id) DO UPDATE SET cursor = excluded.cursor,"
                " updated = excluded.updated",
                (session_id, cursor, now),
            )

    def uncaptured(self, quiet_since: float | None = None, limit: int = 50) -> list[str]:
        """Sessions holding messages capture has not read; with `quiet_since`, only
        those whose newest message is older than it (idle: the sweep's debounce)."""
        rows = self.query(
            "SELECT m.session_id, MAX(m.id), MAX(m.at) FROM messages m"
            " LEFT JOIN capture_cursors c ON c.session_id = m.session_id"
            " GROUP BY m.session_id HAVING MAX(m.id) > COALESCE(MAX(c.cursor), 0)"
            " ORDER BY MAX(m.id) LIMIT ?",
            (limit,),
        )
        return [r[0] for r in rows if quiet_since is None or float(r[2]) < quiet_since]

    def session_count(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM sessions")[0][0])

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM messages").fetchone()[0])


_COLUMNS = "id, session_id, role, text, at, direct"


def _prefixed(alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in _COLUMNS.split(","))


def _message(row: tuple[Any, ...]) -> LoggedMessage:
    return LoggedMessage(int(row[0]), row[1], row[2], row[3], float(row[4]), bool(row[5]))


def check_session_id(session_id: str) -> str:
    if not session_id or len(session_id) > 200 or not session_id.isprintable():
        raise InvalidInputError(
            "session id: 1-200 printable characters expected, got " + repr(session_id[:40])
        )
    return session_id


def open_session_log(workspace: Workspace) -> SessionLog:
    return SessionLog(workspace.state_dir / "sessions.sqlite")
