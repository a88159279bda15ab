"""The conversation log: every logged turn of every session, in SQLite.

Owns `.substrate/sessions.sqlite` (WAL): sessions (root, or child of a root
session: a delegated or tool-run conversation) and their messages, with a
full-text index. Promotion reads its evidence here (root sessions, user turns
only) and session recall reads earlier turns. It is derived from nothing:
losing the file loses history, so it is backed up with the workspace.
"""

from substrate.sessions.log import (
    END_REASONS,
    ROLES,
    LoggedMessage,
    NewMessage,
    SessionLog,
    SessionRow,
    open_session_log,
)
from substrate.sessions.text import fts_query, normalize

__all__ = [
    "END_REASONS",
    "ROLES",
    "LoggedMessage",
    "NewMessage",
    "SessionLog",
    "SessionRow",
    "fts_query",
    "normalize",
    "open_session_log",
]
