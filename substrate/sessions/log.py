"""`SessionLog`: the conversation log, its authority in transcripts under
`memory/conversations/` (`transcripts`), searchable through a derived SQLite
database with FTS5 under `.substrate/`.

Every write appends to the session's transcript first, then changes the
database, inside one SQLite write transaction (which serialises the
workspace's writers across processes). The database is rebuilt from the
transcripts when it is missing, behind, or deleted under a running process
(each call checks the file it has open is still the one on disk), so
deleting `.substrate/` loses no conversation. A session is created by its
first message; a child session names its root (`parent_id`), and a child of a
child is refused, so "root sessions only" is one column test.

Message ids are unique across the workspace and grow with time (the wall
clock in microseconds, or one past the largest id, whichever is larger), so
a writer killed between its append and its commit can never have handed out
an id the next writer reuses.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import (
    InvalidInputError,
    NotFoundError,
    StoreUnavailableError,
    from_database_error,
)
from substrate.safety import database_bytes, journal
from substrate.safety.fencing import fenced
from substrate.sessions.erasure import (
    Erased,
    Erasure,
    apply_erasure,
    erasure_journal,
    plan_erasure,
    recover_erasure,
)
from substrate.sessions.rebuild import export_legacy, sync
from substrate.sessions.schema import SCHEMA, VERSION
from substrate.sessions.text import fts_query, normalize
from substrate.sessions.transcripts import (
    Record,
    append_records,
    record_problem,
    transcript_path,
)

log = logging.getLogger("memory.sessions")
ROLES = ("user", "assistant", "tool", "system")
END_REASONS = ("new", "reset", "exit", "idle", "one-shot")
MAX_LIMIT = 10_000
TITLE_CHARS = 80  # a session title's most characters


@dataclass(frozen=True)
class NewMessage:
    """`at`: when it was said, when not now (an imported conversation's own time)."""

    role: str
    text: str
    direct: bool
    at: float | None = None


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
    first_said: str | None = None  # the first user turn's text, which titles the session
    named: str | None = None  # the title an imported conversation came with

    @property
    def title(self) -> str:
        """The title the conversation came with (an import), else the first line
        of the person's first turn, cut at a word within 80 characters; the id
        when the session holds no user turn."""
        line = (self.named or self.first_said or "").strip().split("\n", 1)[0].strip()
        if not line:
            return self.id
        return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "parent_id": self.parent_id,
            "started": self.started,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "messages": self.messages,
        }


class SessionLog:
    """One connection per log, shared by the service's threads behind a lock.
    `read_only`: a workspace this process may not write (a read-only mount) is
    read through a database built in memory from its transcripts."""

    def __init__(self, workspace: Workspace, *, read_only: bool = False) -> None:
        self.workspace = workspace
        self.path = workspace.state_dir / "sessions.sqlite"
        self._read_only = read_only
        self._lock = threading.Lock()
        self.resets = 0  # databases rebuilt because the one open was deleted
        self._db, self._inode = self._connect()

    def _connect(self) -> tuple[sqlite3.Connection, int | None]:
        try:
            return self._open_file()
        except (OSError, sqlite3.Error) as exc:
            if not self._read_only:
                raise StoreUnavailableError(
                    f"cannot open the conversation log's index at {self.path}: {exc}"
                ) from None
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.executescript(SCHEMA)
        sync(db, self.workspace)
        return db, None

    def _open_file(self) -> tuple[sqlite3.Connection, int | None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        legacy = self._legacy_version()
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=10000")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            # a deleted row's bytes are overwritten, not left in free pages: a
            # forgotten message leaves the file (`purge` compacts the rest)
            db.execute("PRAGMA secure_delete=ON")
            db.executescript(SCHEMA)
            db.execute("BEGIN IMMEDIATE")
            recovered = recover_erasure(db, self.workspace)
            sync(db, self.workspace)
            db.execute("COMMIT")
            if recovered:
                journal.discard(erasure_journal(self.workspace))
        except BaseException:
            db.close()
            raise
        if legacy:
            log.warning("conversation log %s: written out as transcripts", self.path)
        return db, os.stat(self.path).st_ino

    def _legacy_version(self) -> bool:
        """A database from before the transcripts: write its log out, then start a
        new database from the transcripts (returns whether it did)."""
        if not self.path.exists():
            return False
        probe = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        try:
            version = probe.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master")}
        finally:
            probe.close()
        if version >= VERSION or "messages" not in tables:
            return False
        export_legacy(self.path, self.workspace)
        for suffix in ("", "-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        return True

    def _current(self) -> sqlite3.Connection:
        """The open database, reopened (and rebuilt from the transcripts) when its
        file was deleted or replaced under this process. Call under the lock."""
        if self._inode is None:
            return self._db
        try:
            inode: int | None = os.stat(self.path).st_ino
        except FileNotFoundError:
            inode = None
        if inode != self._inode:
            log.warning("conversation log index %s vanished: rebuilt from transcripts", self.path)
            self._db.close()
            self._db, self._inode = self._connect()
            self.resets += 1
        return self._db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE), for the modules of this room."""
        with self._write() as db:
            yield db

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock, self._typed():
            return list(self._current().execute(sql, args).fetchall())

    @contextmanager
    def _typed(self) -> Iterator[None]:
        """SQLite's failures as ours (a full disk, a read-only folder)."""
        try:
            yield
        except sqlite3.Error as exc:
            raise from_database_error(exc, self.path.parent) from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if self._read_only:
            raise StoreUnavailableError("the conversation log is open read-only")
        with self._lock, self._typed():
            db = self._current()
            db.execute("BEGIN IMMEDIATE")
            try:
                recovered = recover_erasure(db, self.workspace)
                yield db
                with fenced(self.path):  # a process that lost its writer lease commits nothing
                    db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if recovered:  # a killed forget's transcripts, now derived: its journal goes
                journal.discard(erasure_journal(self.workspace))

    def record(self, db: sqlite3.Connection, session_id: str, records: list[Record]) -> None:
        """Append `records` to the session's transcript, inside a write transaction,
        and note how far the database has read it."""
        path = transcript_path(self.workspace, session_id)
        append_records(path, records)
        db.execute(
            "INSERT INTO transcripts(name, session_id, offset) VALUES (?, ?, ?)"
            " ON CONFLICT(name) DO UPDATE SET offset = excluded.offset",
            (path.name, session_id, path.stat().st_size),
        )

    def append(
        self,
        session_id: str,
        messages: list[NewMessage],
        now: float,
        parent_id: str | None = None,
        title: str | None = None,
    ) -> list[int]:
        """Store `messages` in order (creating the session, with the `title` an
        imported conversation came with); their ids. All or none."""
        check_session_id(session_id)
        for i, m in enumerate(messages):
            if m.role not in ROLES:
                raise InvalidInputError(
                    f"messages[{i}].role: {m.role!r} is not one of {', '.join(ROLES)}"
                )
        with self._write() as db:
            records = self._ensure(db, session_id, parent_id, now, title)
            start = _next_id(db)
            rows = [(start + i, m) for i, m in enumerate(messages)]
            records += [
                {
                    "message": i,
                    "role": m.role,
                    "text": m.text,
                    "at": m.at or now,
                    "direct": m.direct,
                }
                for i, m in rows
            ]
            for record in records:
                problem = record_problem(record)
                if problem is not None:  # a reader could never read it back
                    raise InvalidInputError(f"messages: {problem}")
            self.record(db, session_id, records)
            db.executemany(
                "INSERT INTO messages(id, session_id, role, text, folded, at, direct)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (i, session_id, m.role, m.text, normalize(m.text), m.at or now, int(m.direct))
                    for i, m in rows
                ],
            )
            db.execute(
                "UPDATE sessions SET messages = messages + ? WHERE id = ?", (len(rows), session_id)
            )
            return [i for i, _ in rows]

    def _ensure(
        self,
        db: sqlite3.Connection,
        session_id: str,
        parent_id: str | None,
        now: float,
        title: str | None = None,
    ) -> list[Record]:
        """The records that create the session, or none when it exists."""
        row = db.execute("SELECT parent_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is not None:
            if parent_id is not None and row[0] != parent_id:
                raise InvalidInputError(
                    f"parent_id: session {session_id!r} already exists with parent {row[0]!r}"
                )
            return []
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
        record: Record = {"session": session_id, "parent": parent_id, "started": now}
        named = " ".join((title or "").split())[: TITLE_CHARS * 4]
        if named:
            record["title"] = named
            db.execute("INSERT INTO titles(session_id, title) VALUES (?, ?)", (session_id, named))
        return [record]

    def end(self, session_id: str, reason: str, now: float) -> SessionRow:
        """End a session and, in the same transaction, queue its finalization with
        the cutoff it must read up to (a resumed session's later messages never
        change that audit). Ending again with nothing said since queues nothing."""
        if reason not in END_REASONS:
            raise InvalidInputError(f"reason: {reason!r} is not one of {', '.join(END_REASONS)}")
        check_session_id(session_id)
        with self._write() as db:
            row = db.execute("SELECT messages FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise NotFoundError(f"no session {session_id!r} in the log")
            last = db.execute(
                "SELECT COALESCE(MAX(id), 0) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            done = db.execute(
                "SELECT 1 FROM finalizations WHERE session_id = ? AND cutoff_message_id = ?",
                (session_id, last),
            ).fetchone()
            if done is None:
                record = {"end": reason, "at": now, "cutoff": last, "count": int(row[0])}
                self.record(db, session_id, [record])
                db.execute(
                    "UPDATE sessions SET ended = ?, end_reason = ? WHERE id = ?",
                    (now, reason, session_id),
                )
                db.execute(
                    "INSERT INTO finalizations(session_id, reason, cutoff_count, cutoff_message_id,"
                    " status, created, updated) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
                    (session_id, reason, int(row[0]), last, now, now),
                )
        found = self.session(session_id)
        assert found is not None
        return found

    def session(self, session_id: str) -> SessionRow | None:
        rows = self._sessions("WHERE s.id = ?", (session_id,))
        return rows[0] if rows else None

    def parent_of(self, session_id: str) -> tuple[bool, str | None]:
        """(whether the session exists, its parent): one indexed lookup."""
        rows = self.query("SELECT parent_id FROM sessions WHERE id = ?", (session_id,))
        return (True, rows[0][0]) if rows else (False, None)

    def sessions(self, limit: int = 50) -> list[SessionRow]:
        """The newest sessions first."""
        return self._sessions("ORDER BY s.started DESC, s.id LIMIT ?", (_limit(limit),))

    def _sessions(self, tail: str, args: tuple[Any, ...]) -> list[SessionRow]:
        rows = self.query(
            "SELECT s.id, s.parent_id, s.started, s.ended, s.end_reason, s.messages,"
            " (SELECT m.text FROM messages m WHERE m.session_id = s.id AND m.role = 'user'"
            " ORDER BY m.id LIMIT 1),"
            " (SELECT t.title FROM titles t WHERE t.session_id = s.id)"
            f" FROM sessions s {tail}",
            args,
        )
        return [SessionRow(*row) for row in rows]

    def messages(self, session_id: str, limit: int | None = None) -> list[LoggedMessage]:
        rows = self.query(
            f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? ORDER BY id LIMIT ?",
            (session_id, -1 if limit is None else _limit(limit)),
        )
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
        return [_message(row) for row in self.query(sql, (*args, _limit(limit)))]

    def prune(self, older_than: float) -> int:
        """Drop messages logged before `older_than` (retention), from the
        transcripts and the database, then sessions left with none; how many
        messages went."""
        from substrate.sessions.retention import prune

        with self._write() as db:
            return prune(db, self.workspace, older_than)

    def session_of(self, message_id: int) -> str | None:
        """The session a logged message belongs to."""
        rows = self.query("SELECT session_id FROM messages WHERE id = ?", (message_id,))
        return str(rows[0][0]) if rows else None

    def erase(
        self,
        erasure: Erasure,
        tombstone: Callable[[list[Erased]], journal.Step | None] = lambda erased: None,
    ) -> list[Erased]:
        """Take what `erasure` names out of the transcripts and the database, with
        the tombstone `tombstone` makes of what went, as one journaled change
        (`erasure`); what was erased (as it was), or nothing when it is gone
        already."""
        if self._read_only:
            raise StoreUnavailableError("the conversation log is open read-only")
        redacted = {m for m, _ in erasure.redactions}
        with self._lock, self._typed():
            db = self._current()
            db.execute("BEGIN IMMEDIATE")
            try:
                if recover_erasure(db, self.workspace):
                    with fenced(self.path):
                        db.execute("COMMIT")
                    journal.discard(erasure_journal(self.workspace))
                    db.execute("BEGIN IMMEDIATE")
                plan = plan_erasure(db, self.workspace, erasure, redacted)
                if not plan.erased:
                    db.execute("ROLLBACK")
                    return []

                def commit() -> None:
                    with fenced(self.path):
                        db.execute("COMMIT")

                apply_erasure(db, self.workspace, plan, tombstone(plan.erased), commit)
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        return plan.erased

    def compact(self) -> dict[str, Any]:
        """The database rewritten with its live rows alone (`memory purge`): the
        full-text index merged (a deleted message's words leave its segments),
        then VACUUM, then the write-ahead log checkpointed and truncated. With
        `secure_delete` on, nothing freed keeps its old bytes. Bytes before and
        after, the write-ahead log included."""
        before = database_bytes(self.path)
        with self._lock, self._typed():
            db = self._current()
            db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"path": str(self.path), "before": before, "after": database_bytes(self.path)}

    def capture_cursor(self, session_id: str) -> int:
        """The last message id capture has read in this session (0: none)."""
        rows = self.query("SELECT cursor FROM capture_cursors WHERE session_id = ?", (session_id,))
        return int(rows[0][0]) if rows else 0

    def set_capture_cursor(
        self, session_id: str, cursor: int, now: float, facts: dict[str, int] | None = None
    ) -> None:
        """Capture read up to `cursor`; `facts`: the buffer entries it wrote, each with
        the message it was drawn from (kept in the transcript, the authority)."""
        record: dict[str, Any] = {"captured": cursor, "at": now}
        if facts:
            record["facts"] = facts
        with self._write() as db:
            self.record(db, session_id, [record])
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
            (_limit(limit),),
        )
        return [r[0] for r in rows if quiet_since is None or float(r[2]) < quiet_since]

    def session_count(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM sessions")[0][0])

    def count(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM messages")[0][0])


_COLUMNS = "id, session_id, role, text, at, direct"


def _next_id(db: sqlite3.Connection) -> int:
    largest = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0])
    return max(int(time.time() * 1_000_000), largest + 1)


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    return limit


def _prefixed(alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in _COLUMNS.split(","))


def _message(row: tuple[Any, ...]) -> LoggedMessage:
    return LoggedMessage(int(row[0]), row[1], row[2], row[3], float(row[4]), bool(row[5]))


def check_session_id(session_id: str) -> str:
    if (
        not session_id
        or len(session_id) > 200
        or not session_id.isprintable()
        or any(0xD800 <= ord(c) <= 0xDFFF for c in session_id)
    ):
        raise InvalidInputError(
            "session id: 1-200 printable characters expected, got "
            + repr(session_id[:40].encode("utf-8", "backslashreplace").decode())
        )
    return session_id


def open_session_log(workspace: Workspace, *, read_only: bool = False) -> SessionLog:
    return SessionLog(workspace, read_only=read_only)
