"""The finalization queue: session endings waiting to be curated.

Rows live beside the log in `sessions.sqlite`; `SessionLog.end` inserts one
with its cutoff in the ending's own transaction. The queue is derived like
the rest of the database: an ending is a record of the session's transcript,
and so is each finalization's terminal outcome (and a retry), so a rebuilt
database queues again only what never finished. One finalization runs per
workspace at a time: a claim takes a lease, and a lease that expired (its
worker died) is claimed again. A failure keeps the row's cursor (the last
message read), so a bounded retry revisits only what was not read; after
`MAX_ATTEMPTS` the row is terminal (`failed`). The newest `KEEP_TERMINAL`
terminal rows are kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from substrate.errors import InvalidInputError, NotFoundError
from substrate.sessions.log import MAX_LIMIT, SessionLog

MAX_ATTEMPTS = 3
KEEP_TERMINAL = 1000
LEASE_S = 600.0
TERMINAL = ("done", "failed", "skipped")
_COLUMNS = (
    "id, session_id, reason, cutoff_count, cutoff_message_id, status, attempts,"
    " lease_until, cursor, code, created, updated"
)


@dataclass(frozen=True)
class Finalization:
    id: int
    session_id: str
    reason: str
    cutoff_count: int
    cutoff_message_id: int
    status: str  # queued / running / done / failed / skipped
    attempts: int
    lease_until: float | None
    cursor: int
    code: str | None
    created: float
    updated: float

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _rows(log: SessionLog, where: str, args: tuple[Any, ...]) -> list[Finalization]:
    return [
        Finalization(*r) for r in log.query(f"SELECT {_COLUMNS} FROM finalizations {where}", args)
    ]


def listed(log: SessionLog, limit: int = 50) -> list[Finalization]:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    return _rows(log, "ORDER BY id DESC LIMIT ?", (limit,))


def counts(log: SessionLog) -> dict[str, int]:
    """How many finalizations are in each status."""
    rows = log.query("SELECT status, COUNT(*) FROM finalizations GROUP BY status ORDER BY status")
    return {str(status): int(n) for status, n in rows}


def get(log: SessionLog, finalization_id: int) -> Finalization:
    if not 0 < finalization_id < 2**63:
        raise NotFoundError(f"no finalization {finalization_id} (see `memory finalization list`)")
    found = _rows(log, "WHERE id = ?", (finalization_id,))
    if not found:
        raise NotFoundError(f"no finalization {finalization_id} (see `memory finalization list`)")
    return found[0]


def claim(log: SessionLog, now: float, lease_s: float = LEASE_S) -> Finalization | None:
    """The oldest queued (or lease-expired) finalization, now running under a
    lease; None when one is running already or none waits."""
    with log.transaction() as db:
        running = db.execute(
            "SELECT 1 FROM finalizations WHERE status = 'running' AND lease_until > ?", (now,)
        ).fetchone()
        if running:
            return None
        row = db.execute(
            "SELECT id FROM finalizations WHERE status = 'queued'"
            " OR (status = 'running' AND lease_until <= ?) ORDER BY id LIMIT 1",
            (now,),
        ).fetchone()
        if row is None:
            return None
        db.execute(
            "UPDATE finalizations SET status = 'running', lease_until = ?, attempts = attempts + 1,"
            " updated = ? WHERE id = ?",
            (now + lease_s, now, row[0]),
        )
    return get(log, int(row[0]))


def advance(log: SessionLog, finalization_id: int, cursor: int, now: float) -> None:
    """Record that messages up to `cursor` were read (a retry starts after it)."""
    with log.transaction() as db:
        db.execute(
            "UPDATE finalizations SET cursor = ?, updated = ? WHERE id = ?",
            (cursor, now, finalization_id),
        )


def finish(
    log: SessionLog, finalization_id: int, status: str, code: str | None, now: float
) -> None:
    if status not in TERMINAL:
        raise InvalidInputError(f"status {status!r} is not terminal ({', '.join(TERMINAL)})")
    row = get(log, finalization_id)
    with log.transaction() as db:
        _outcome(log, db, row, status, code, row.attempts, now)
        db.execute(
            "UPDATE finalizations SET status = ?, code = ?, lease_until = NULL, updated = ?"
            " WHERE id = ?",
            (status, code, now, finalization_id),
        )


def _outcome(
    log: SessionLog,
    db: Any,
    row: Finalization,
    status: str,
    code: str | None,
    attempts: int,
    now: float,
) -> None:
    """The outcome as a record of the session's transcript (keyed by the ending's time)."""
    record = {
        "finalized": status,
        "code": code,
        "attempts": attempts,
        "at": now,
        "end_at": row.created,
    }
    log.record(db, row.session_id, [record])


def fail(log: SessionLog, finalization_id: int, code: str, now: float) -> str:
    """A failed attempt: queued again with its cursor, or terminal after
    `MAX_ATTEMPTS`; returns the new status."""
    row = get(log, finalization_id)
    status = "failed" if row.attempts >= MAX_ATTEMPTS else "queued"
    with log.transaction() as db:
        if status == "failed":
            _outcome(log, db, row, status, code[:200], row.attempts, now)
        db.execute(
            "UPDATE finalizations SET status = ?, code = ?, lease_until = NULL, updated = ?"
            " WHERE id = ?",
            (status, code[:200], now, finalization_id),
        )
    return status


def retry(log: SessionLog, finalization_id: int, now: float) -> Finalization:
    """Queue a terminal finalization again (its cursor kept, attempts reset)."""
    row = get(log, finalization_id)
    if row.status not in ("failed", "skipped"):
        raise InvalidInputError(
            f"finalization {finalization_id} is {row.status}; only failed or skipped ones retry"
        )
    with log.transaction() as db:
        _outcome(log, db, row, "queued", None, 0, now)
        db.execute(
            "UPDATE finalizations SET status = 'queued', attempts = 0, code = NULL, updated = ?"
            " WHERE id = ?",
            (now, finalization_id),
        )
    return get(log, finalization_id)


def prune(log: SessionLog, keep: int = KEEP_TERMINAL) -> int:
    """Drop terminal rows beyond the newest `keep`; returns how many went."""
    with log.transaction() as db:
        cur = db.execute(
            "DELETE FROM finalizations WHERE status IN ('done', 'failed', 'skipped') AND id NOT IN"
            " (SELECT id FROM finalizations WHERE status IN ('done', 'failed', 'skipped')"
            " ORDER BY id DESC LIMIT ?)",
            (keep,),
        )
        return int(cur.rowcount)
