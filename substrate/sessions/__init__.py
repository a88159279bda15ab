"""The conversation log: every logged turn of every session.

Owns `memory/conversations/*.jsonl`, the log's authority (one transcript per
session, appended to, and rewritten only by a forget (`erasure`): its
messages, its endings, what finalization and capture made of it), and
`.substrate/sessions.sqlite`, derived from them: sessions and messages with a
full-text index, the finalization queue and capture cursors, rebuilt
whenever it is missing or behind. Promotion reads its evidence here (root
sessions, user turns only) and session recall reads earlier turns. It
imports `config`, `safety` and `lineage` only.
"""

from substrate.sessions.episodes import Window, WindowFinder
from substrate.sessions.log import (
    END_REASONS,
    MAX_LIMIT,
    ROLES,
    LoggedMessage,
    NewMessage,
    SessionLog,
    SessionRow,
    check_session_id,
    open_session_log,
)
from substrate.sessions.text import fts_query, normalize
from substrate.sessions.transcripts import (
    bad_lines,
    transcript_files,
    transcript_path,
    transcripts_dir,
)

__all__ = [
    "END_REASONS",
    "MAX_LIMIT",
    "ROLES",
    "LoggedMessage",
    "NewMessage",
    "SessionLog",
    "SessionRow",
    "Window",
    "WindowFinder",
    "bad_lines",
    "check_session_id",
    "fts_query",
    "normalize",
    "open_session_log",
    "transcript_files",
    "transcript_path",
    "transcripts_dir",
]
