"""The background job queue: SQLite under `.substrate/jobs.sqlite`.

Jobs outlive the process that queued them, so the queue is a file, not a
list in memory. A worker claims a job by taking a lease (`lease_until`) in its
process's name (`owner`: pid and start time, `service.owners`). A job whose
owner process is gone is taken by the next claim at once, whatever its lease
says (a `kill -9` must not leave a consolidation waiting out five minutes);
a lease that expires is taken again too, so a crash never loses or wedges one. A failed attempt
is retried with exponential backoff on one of two curves: `transient`
(a store hiccup, a timeout: seconds to minutes) and `billing` (a model
provider refusing for quota or payment: many minutes to hours, since
retrying sooner only burns requests). An error the user must fix
(`MemoryServiceError`) is not retried. Identical queued jobs (same kind and
payload) are deduped: queuing one again returns the queued job. Every
attempt is recorded in a bounded run history, which `stats` reports.

Jobs run in lanes (`LANES`), one worker each: index upkeep (maintain,
re-embed) never waits behind model work (consolidation, finalization,
capture), so a slow model answer cannot keep a hand-edited page unsearchable.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.owners import alive, this_process
from substrate.errors import (
    BillingError,
    InvalidInputError,
    MemoryServiceError,
    StoreUnavailableError,
    TransientError,
    from_database_error,
)
from substrate.safety import database_bytes

log = logging.getLogger("memory.jobs")
KINDS = (
    "memory_v2_reembed",
    "memory_v3_maintain",
    "memory_v2_consolidate",
    "memory_finalize",
    "memory_capture",
    "memory_purge",
)
INDEX_LANE, LEARNING_LANE = "index", "learning"
LOWEST = "memory_purge"  # its lane's other due jobs run first
LANES: dict[str, tuple[str, ...]] = {
    INDEX_LANE: ("memory_v2_reembed", "memory_v3_maintain", LOWEST),
    LEARNING_LANE: ("memory_v2_consolidate", "memory_finalize", "memory_capture"),
}
LANE_OF = {kind: lane for lane, kinds in LANES.items() for kind in kinds}
# At most one of these queued or running, whatever queued it (a schedule tick,
# a remember's nudge, run-now): a second request joins the one there is.
SINGLETONS = frozenset(
    {"memory_v2_consolidate", "memory_finalize", "memory_capture", "memory_purge"}
)
HISTORY = 200
FINISHED_KEPT = 1000  # finished job rows kept, besides the bounded run history


class TransientJobError(Exception):
    """Worth retrying soon: the cause is expected to pass on its own."""


class BillingJobError(Exception):
    """A provider refused for quota or payment: retry, but slowly."""


@dataclass(frozen=True)
class Backoff:
    first_s: float
    cap_s: float
    attempts: int  # total attempts before the job is marked failed

    def delay(self, attempt: int) -> float:
        return float(min(self.cap_s, self.first_s * 2 ** (attempt - 1)))


TRANSIENT = Backoff(first_s=5.0, cap_s=600.0, attempts=6)
BILLING = Backoff(first_s=900.0, cap_s=6 * 3600.0, attempts=5)


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int


@dataclass(frozen=True)
class Queued:
    id: int
    deduped: bool


SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,            -- queued | running | done | failed
    attempts INTEGER NOT NULL DEFAULT 0,
    run_after REAL NOT NULL,
    lease_until REAL,
    created_at REAL NOT NULL,
    finished_at REAL,
    last_error TEXT,
    owner TEXT                      -- the claiming process: pid:start time
);
CREATE UNIQUE INDEX IF NOT EXISTS jobs_one_queued
    ON jobs(kind, payload) WHERE state = 'queued';
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(state, run_after);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id INTEGER,
    kind TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL NOT NULL,
    outcome TEXT NOT NULL,          -- ok | retry | failed | skipped
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS marks (key TEXT PRIMARY KEY, value REAL NOT NULL);
"""


class JobQueue:
    """One connection per call: the queue is shared by the worker thread,
    request handlers and other processes, and SQLite serialises writers."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self._path = path
        self._clock = clock
        # Set by every enqueue in this process, one per lane: a lane's worker
        # sleeps on it rather than polling the database often (jobs from other
        # processes and retries wait for its poll).
        self.enqueued = {lane: threading.Event() for lane in LANES}
        self.any_enqueued = threading.Event()  # for a worker of every lane
        self._opened = False
        with self._db():
            pass
        self._opened = True

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection to a queue with its schema: a file that vanished (a deleted
        `.substrate/`) is recreated empty, so it costs the queue's history, never a
        failed request. `user_version` says whether the schema is there: one cheap
        read per connection, and any connection that finds it missing makes it."""
        if not self._path.exists():
            self._path.parent.mkdir(parents=True, exist_ok=True)
            if self._opened:
                log.warning("job queue %s vanished: starting an empty one", self._path)
        try:
            db = sqlite3.connect(self._path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise from_database_error(exc, self._path.parent) from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA secure_delete=ON")  # a freed row's bytes are overwritten
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                _upgrade(db)
            yield db
        except sqlite3.Error as exc:
            raise from_database_error(exc, self._path.parent) from None
        finally:
            db.close()

    def enqueue(
        self, kind: str, payload: dict[str, Any] | None = None, delay_s: float = 0.0
    ) -> Queued:
        """Queue a job, or return the identical one already queued (for a singleton
        kind, the one of that kind already queued or running)."""
        if kind not in KINDS:
            raise InvalidInputError(f"unknown job kind {kind!r}; known: {', '.join(KINDS)}")
        body = json.dumps(payload or {}, sort_keys=True)
        now = self._clock()
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            if kind in SINGLETONS:
                row = db.execute(
                    "SELECT id FROM jobs WHERE kind = ? AND state IN ('queued', 'running') "
                    "ORDER BY id LIMIT 1",
                    (kind,),
                ).fetchone()
            else:
                row = db.execute(
                    "SELECT id FROM jobs WHERE kind = ? AND payload = ? AND state = 'queued'",
                    (kind, body),
                ).fetchone()
            if row is not None:
                db.execute("COMMIT")
                return Queued(int(row[0]), deduped=True)
            cursor = db.execute(
                "INSERT INTO jobs (kind, payload, state, run_after, created_at) "
                "VALUES (?, ?, 'queued', ?, ?)",
                (kind, body, now + delay_s, now),
            )
            db.execute("COMMIT")
        self.enqueued[LANE_OF[kind]].set()
        self.any_enqueued.set()
        return Queued(int(cursor.lastrowid or 0), deduped=False)

    def claim(self, lease_s: float = 300.0, lane: str | None = None) -> Job | None:
        """The next due job (of `lane`'s kinds, when given), leased to the caller;
        an expired lease counts as due, and so does one whose owner process is gone."""
        now = self._clock()
        kinds = LANES[lane] if lane is not None else KINDS
        marks = ",".join("?" * len(kinds))
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            orphaned = _orphaned(db, kinds)
            row = db.execute(
                "SELECT id, kind, payload, attempts FROM jobs "
                f"WHERE kind IN ({marks}) AND ((state = 'queued' AND run_after <= ?) "
                "   OR (state = 'running' AND lease_until < ?) "
                f"   OR id IN ({','.join('?' * len(orphaned))})) "
                "ORDER BY kind = ?, run_after, id LIMIT 1",
                (*kinds, now, now, *orphaned, LOWEST),
            ).fetchone()
            if row is None:
                db.execute("COMMIT")
                return None
            job_id, kind, payload, attempts = row
            db.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_until = ?, "
                "owner = ? WHERE id = ?",
                (now + lease_s, this_process(), job_id),
            )
            db.execute("COMMIT")
        if job_id in orphaned:
            log.warning("job %s (%s): its worker process is gone; taken over", job_id, kind)
        return Job(int(job_id), str(kind), json.loads(payload), int(attempts) + 1)

    def compact(self) -> dict[str, Any]:
        """The queue's database rewritten with its live rows alone (`memory
        purge`: an error it recorded may have quoted a fact), its write-ahead log
        truncated; bytes before and after."""
        before = database_bytes(self._path)
        with self._db() as db:
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"path": str(self._path), "before": before, "after": database_bytes(self._path)}

    def expired_leases(self) -> list[tuple[int, str, float]]:
        """(id, kind, lease_until) of running jobs whose lease ran out or whose owner
        process is gone: their worker died (the next claim takes them again)."""
        with self._db() as db:
            orphaned = set(_orphaned(db, KINDS))
            rows = db.execute(
                "SELECT id, kind, lease_until, lease_until < ? FROM jobs WHERE state = 'running'",
                (self._clock(),),
            ).fetchall()
        return [
            (int(r[0]), str(r[1]), float(r[2] or 0.0))
            for r in rows
            if r[3] or int(r[0]) in orphaned
        ]

    def release(self, job_id: int) -> bool:
        """Put a running job whose lease expired (or whose owner is gone) back in
        the queue, due now."""
        if not any(job == job_id for job, _, _ in self.expired_leases()):
            return False
        with self._db() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'queued', lease_until = NULL, owner = NULL, "
                "run_after = ? WHERE id = ? AND state = 'running'",
                (self._clock(), job_id),
            )
        return cur.rowcount == 1

    def complete(
        self, job: Job, detail: dict[str, Any], started_at: float, outcome: str = "ok"
    ) -> None:
        """Record a finished job: `ok`, or `skipped` when it found nothing to do."""
        now = self._clock()
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "UPDATE jobs SET state = 'done', finished_at = ?, lease_until = NULL WHERE id = ?",
                (now, job.id),
            )
            self._record(db, job.id, job.kind, started_at, now, outcome, detail)
            db.execute("COMMIT")

    def fail(self, job: Job, error: BaseException, started_at: float) -> str:
        """Record a failed attempt; returns `retry` (queued again after a backoff) or `failed`."""
        curve = _curve(error)
        now = self._clock()
        message = f"{type(error).__name__}: {error}"
        retry = curve is not None and job.attempts < curve.attempts
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            if retry and curve is not None:
                db.execute(
                    "UPDATE jobs SET state = 'queued', run_after = ?, lease_until = NULL, "
                    "last_error = ? WHERE id = ?",
                    (now + curve.delay(job.attempts), message, job.id),
                )
            else:
                db.execute(
                    "UPDATE jobs SET state = 'failed', finished_at = ?, lease_until = NULL, "
                    "last_error = ? WHERE id = ?",
                    (now, message, job.id),
                )
            outcome = "retry" if retry else "failed"
            self._record(db, job.id, job.kind, started_at, now, outcome, {"error": message})
            db.execute("COMMIT")
        return outcome

    def record_skip(self, kind: str, reason: str) -> None:
        """A scheduled job the scheduler decided not to run, with why."""
        now = self._clock()
        with self._db() as db:
            self._record(db, None, kind, now, now, "skipped", {"reason": reason})

    def _record(
        self,
        db: sqlite3.Connection,
        job_id: int | None,
        kind: str,
        started_at: float,
        finished_at: float,
        outcome: str,
        detail: dict[str, Any],
    ) -> None:
        db.execute(
            "INSERT INTO runs (job_id, kind, started_at, finished_at, outcome, detail) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (job_id, kind, started_at, finished_at, outcome, json.dumps(detail, sort_keys=True)),
        )
        db.execute("DELETE FROM runs WHERE id <= (SELECT MAX(id) FROM runs) - ?", (HISTORY,))
        db.execute(
            "DELETE FROM jobs WHERE state IN ('done', 'failed') AND id NOT IN "
            "(SELECT id FROM jobs WHERE state IN ('done', 'failed') ORDER BY id DESC LIMIT ?)",
            (FINISHED_KEPT,),
        )

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute(
                "SELECT job_id, kind, started_at, finished_at, outcome, detail FROM runs "
                "ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_run_json(row) for row in rows]

    def last_runs(self) -> dict[str, dict[str, Any]]:
        """The newest run of each kind."""
        with self._db() as db:
            rows = db.execute(
                "SELECT job_id, kind, started_at, finished_at, outcome, detail FROM runs "
                "WHERE id IN (SELECT MAX(id) FROM runs GROUP BY kind)"
            ).fetchall()
        return {str(row[1]): _run_json(row) for row in rows}

    def job(self, job_id: int) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute(
                "SELECT id, kind, payload, state, attempts, run_after, last_error "
                "FROM jobs WHERE id = ?",
                (job_id,),
            ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0],
            "kind": row[1],
            "payload": json.loads(row[2]),
            "state": row[3],
            "attempts": row[4],
            "run_after": row[5],
            "last_error": row[6],
        }

    def counts(self) -> dict[str, int]:
        with self._db() as db:
            rows = db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        return {str(state): int(n) for state, n in rows}

    def pending(self, kind: str) -> bool:
        """A job of this kind is queued or running (possibly waiting out a backoff)."""
        with self._db() as db:
            row = db.execute(
                "SELECT 1 FROM jobs WHERE kind = ? AND state IN ('queued', 'running') LIMIT 1",
                (kind,),
            ).fetchone()
        return row is not None

    def mark(self, key: str) -> float | None:
        with self._db() as db:
            row = db.execute("SELECT value FROM marks WHERE key = ?", (key,)).fetchone()
        return None if row is None else float(row[0])

    def set_mark(self, key: str, value: float) -> None:
        with self._db() as db:
            db.execute(
                "INSERT INTO marks (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


def _upgrade(db: sqlite3.Connection) -> None:
    """The schema made, or brought up from version 1 (no `owner` column)."""
    db.executescript(SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
    if "owner" not in columns:
        try:
            db.execute("ALTER TABLE jobs ADD COLUMN owner TEXT")
        except sqlite3.OperationalError as exc:  # another connection added it first
            if "duplicate column" not in str(exc):
                raise
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _orphaned(db: sqlite3.Connection, kinds: tuple[str, ...]) -> list[int]:
    """Running jobs of `kinds` whose owner process is gone."""
    marks = ",".join("?" * len(kinds))
    rows = db.execute(
        f"SELECT id, owner FROM jobs WHERE state = 'running' AND owner IS NOT NULL "
        f"AND kind IN ({marks})",
        kinds,
    ).fetchall()
    return [int(job_id) for job_id, owner in rows if not alive(str(owner))]


def _curve(error: BaseException) -> Backoff | None:
    if isinstance(error, BillingJobError | BillingError):
        return BILLING
    if isinstance(
        error,
        StoreUnavailableError | TransientError | TransientJobError | OSError | TimeoutError,
    ):
        return TRANSIENT
    if isinstance(error, MemoryServiceError):
        return None
    return TRANSIENT


def _run_json(row: tuple[Any, ...]) -> dict[str, Any]:
    job_id, kind, started, finished, outcome, detail = row
    return {
        "job_id": job_id,
        "kind": kind,
        "started_at": started,
        "finished_at": finished,
        "seconds": round(finished - started, 3),
        "outcome": outcome,
        "detail": json.loads(detail),
    }
