"""Idempotent writes: a request sent again with the same `Idempotency-Key`
within 24 hours gets the first answer, and is not done twice.

A dropped connection whose request had landed, retried, would otherwise store
a fact twice. The key store (`.substrate/requests.sqlite`) keeps, per key:

- `id`: a hash of the route and the key (the key itself is the client's);
- `request`: a hash of the method, route and body, so the same key with a
  different request is refused rather than answered with another's answer;
- `answer`: the first answer's status and body, encrypted (AES-GCM) under a
  key derived from the request body and the idempotency key. The store alone
  cannot give back a fact's words: only the same request can read its answer.

Only writes are kept: a read (`card`, `search`, an explanation) is repeatable
by nature, so it is answered afresh and nothing of it is stored (`keeps`). A
forget's or a purge's answer is kept by its ids alone (`ids_only`): the words
it just forgot never enter the store after the forget emptied it.

A forget or a purge empties the store (`clear`): what a forgotten fact's
request and answer left, even encrypted, goes with it. A retry after that is
run again, which is the cost of forgetting at once. Rows older than a day are
dropped as new ones come, and the store is bounded (`MAX_ROWS`, `MAX_BYTES` of
answers): the oldest answers go first.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from substrate.errors import InvalidInputError, LockHeldError, from_database_error
from substrate.safety import database_bytes

KEPT_S = 24 * 3600.0
STALE_RUNNING_S = 900.0  # a first request "still running" this long died with its process
KEY_CHARS = 255
MAX_ROWS = 2000  # kept answers, newest first
MAX_BYTES = 4 * 1024 * 1024  # of kept answers
# The last step of a route that reads (answered afresh, never kept) and of one
# that forgets (kept by its ids alone).
READS = frozenset({"card", "search", "explain"})
FORGETS = frozenset({"forget", "purge"})
# The words a forget's answer may carry back to its caller, never kept.
_WORDS = frozenset({"content", "text"})
PENDING = -1  # a first request with this key still runs
SCHEMA = """
CREATE TABLE IF NOT EXISTS replays (
    id TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    status INTEGER NOT NULL,
    answer BLOB,
    created REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Replay:
    status: int
    body: bytes


@dataclass(frozen=True)
class Claim:
    """What `begin` found: a `replay` of the first answer, or the right to run
    (`id`, `request`, the cipher key) and `finish` after."""

    replay: Replay | None
    id: str
    request: str
    secret: bytes


def keeps(route: str) -> bool:
    """Whether a POST to `route` is a write whose answer the store keeps."""
    return _last_step(route) not in READS


def ids_only(route: str, body: bytes) -> bytes:
    """The answer as kept: a forget's or a purge's without the words it
    names (ids, pages and counts stay); any other answer as it is."""
    if _last_step(route) not in FORGETS:
        return body
    try:
        answer = json.loads(body)
    except ValueError:
        return b"{}"
    kept = _without_words(answer)
    if isinstance(kept, dict) and not _an_id(kept.get("forgot")):
        kept.pop("forgot", None)  # what was asked for in words is words too
    return json.dumps(kept).encode()


def _an_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 64 and value.replace("-", "").isalnum()


def _without_words(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_words(v) for k, v in value.items() if k not in _WORDS}
    if isinstance(value, list):
        return [_without_words(v) for v in value]
    return value


def _last_step(route: str) -> str:
    return route.rstrip("/").rsplit("/", 1)[-1]


def replay_store(state_dir: Path) -> ReplayStore:
    return ReplayStore(state_dir / "requests.sqlite")


def check_key(key: str) -> str:
    """An idempotency key: 1 to 255 visible ASCII characters."""
    if not 1 <= len(key) <= KEY_CHARS or not all(33 <= ord(c) < 127 for c in key):
        raise InvalidInputError(
            f"Idempotency-Key: 1 to {KEY_CHARS} visible ASCII characters, got {len(key)} characters"
        )
    return key


class ReplayStore:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._now = time.time

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self._path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise from_database_error(exc, self._path.parent) from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA secure_delete=ON")  # a dropped row's bytes are overwritten
            db.executescript(SCHEMA)
            yield db
        except sqlite3.Error as exc:
            raise from_database_error(exc, self._path.parent) from None
        finally:
            db.close()

    def begin(self, key: str, method: str, route: str, body: bytes) -> Claim:
        """The first answer to this key (a replay), or a claim to run the request;
        refused when the key came with another request, or its first still runs."""
        ident = _hash(b"id", route.encode(), key.encode())
        request = _hash(b"request", method.encode(), route.encode(), body)
        secret = hashlib.sha256(b"answer\0" + key.encode() + b"\0" + body).digest()
        now = self._now()
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM replays WHERE created < ?", (now - KEPT_S,))
            db.execute(
                "DELETE FROM replays WHERE status = ? AND created < ?",
                (PENDING, now - STALE_RUNNING_S),
            )
            row = db.execute(
                "SELECT request, status, answer FROM replays WHERE id = ?", (ident,)
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO replays (id, request, status, answer, created) "
                    "VALUES (?, ?, ?, NULL, ?)",
                    (ident, request, PENDING, now),
                )
            db.execute("COMMIT")
        if row is None:
            return Claim(None, ident, request, secret)
        if row[0] != request:
            raise InvalidInputError(
                "Idempotency-Key: this key came with another request within the last day; "
                "use a new key for a new request"
            )
        if row[1] == PENDING:
            raise LockHeldError(
                "Idempotency-Key: the first request with this key is still running; "
                "retry in a moment for its answer"
            )
        return Claim(Replay(int(row[1]), _open(secret, bytes(row[2]))), ident, request, secret)

    def finish(self, claim: Claim, status: int, body: bytes) -> None:
        """Keep the answer (encrypted) for replays; a server error is not kept, so a
        retry runs again."""
        with self._db() as db:
            if status >= 500:
                db.execute("DELETE FROM replays WHERE id = ? AND status = ?", (claim.id, PENDING))
                return
            db.execute(
                "UPDATE replays SET status = ?, answer = ? WHERE id = ?",
                (status, _seal(claim.secret, body), claim.id),
            )
            _bounded(db)

    def abandon(self, claim: Claim) -> None:
        with self._db() as db:
            db.execute("DELETE FROM replays WHERE id = ? AND status = ?", (claim.id, PENDING))

    def clear(self) -> dict[str, Any]:
        """Every kept answer dropped and the file rewritten (a forget or a purge);
        the bytes before and after."""
        before = database_bytes(self._path)
        if self._path.exists():
            with self._db() as db:
                db.execute("DELETE FROM replays WHERE status != ?", (PENDING,))
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"path": str(self._path), "before": before, "after": database_bytes(self._path)}

    def kept_before(self, moment: float) -> int:
        """How many kept answers were made before `moment` (a forget's time):
        a forget empties the store, so any such answer is a forget's residue."""
        if not self._path.exists():
            return 0
        with self._db() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM replays WHERE status != ? AND created < ?", (PENDING, moment)
            ).fetchone()
            return int(row[0])

    def count(self) -> int:
        with self._db() as db:
            return int(db.execute("SELECT COUNT(*) FROM replays").fetchone()[0])


def _bounded(db: sqlite3.Connection) -> None:
    """Drop the oldest kept answers beyond `MAX_ROWS` or `MAX_BYTES`."""
    rows = db.execute(
        "SELECT id, LENGTH(answer) FROM replays WHERE status != ? ORDER BY created DESC",
        (PENDING,),
    ).fetchall()
    total = 0
    gone = []
    for n, (ident, size) in enumerate(rows):
        total += int(size or 0)
        if n >= MAX_ROWS or total > MAX_BYTES:
            gone.append((ident,))
    if gone:
        db.executemany("DELETE FROM replays WHERE id = ?", gone)


def _hash(*parts: bytes) -> str:
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def _seal(secret: bytes, body: bytes) -> bytes:
    nonce = os.urandom(12)
    return nonce + AESGCM(secret).encrypt(nonce, body, None)


def _open(secret: bytes, sealed: bytes) -> bytes:
    return AESGCM(secret).decrypt(sealed[:12], sealed[12:], None)
