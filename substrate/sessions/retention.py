"""Retention: messages older than `sessions_retention_days` leave the log, from
the transcripts (the authority) and the database alike, in one transaction. A
session left with no message (and no child session) goes too. (What a person
asks to forget goes through `erasure`, with its tombstone.)"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from substrate.config.workspace import Workspace
from substrate.sessions.transcripts import rewrite_without, transcript_path


def prune(db: sqlite3.Connection, workspace: Workspace, older_than: float) -> int:
    """Call inside a write transaction; how many messages went."""
    by_session: dict[str, set[int]] = defaultdict(set)
    for message_id, session_id in db.execute(
        "SELECT id, session_id FROM messages WHERE at < ?", (older_than,)
    ):
        by_session[str(session_id)].add(int(message_id))
    for session_id, ids in by_session.items():
        _drop(db, workspace, session_id, ids)
    db.execute(
        "DELETE FROM sessions WHERE messages = 0"
        " AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = sessions.id)"
        " AND started < ?",
        (older_than,),
    )
    return sum(len(ids) for ids in by_session.values())


def _drop(db: sqlite3.Connection, workspace: Workspace, session_id: str, ids: set[int]) -> None:
    """These messages out of the session's transcript (removed when none is left)
    and the database, and the session's count brought up to it."""
    path = transcript_path(workspace, session_id)
    if rewrite_without(path, ids):
        db.execute(
            "UPDATE transcripts SET offset = ? WHERE name = ?", (path.stat().st_size, path.name)
        )
    else:
        db.execute("DELETE FROM transcripts WHERE name = ?", (path.name,))
    db.executemany("DELETE FROM messages WHERE id = ?", [(i,) for i in ids])
    db.execute(
        "UPDATE sessions SET messages = (SELECT COUNT(*) FROM messages m"
        " WHERE m.session_id = sessions.id) WHERE id = ?",
        (session_id,),
    )
