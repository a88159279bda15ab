"""The derived SQLite schema of the conversation log (`.substrate/sessions.sqlite`).

Everything here is rebuilt from the transcripts (`transcripts`): sessions
(and the titles an imported conversation came with), messages and their
full-text index, the finalization queue, capture cursors, and
`transcripts`, how far into each transcript file the database has read
(so a database that fell behind, or is new, catches up on open).
"""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_id TEXT REFERENCES sessions(id),
    started REAL NOT NULL,
    ended REAL,
    end_reason TEXT,
    messages INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS titles (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id),
    title TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS sessions_ad AFTER DELETE ON sessions BEGIN
    DELETE FROM titles WHERE session_id = old.id;
END;
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
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
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, folded) VALUES ('delete', old.id, old.folded);
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
CREATE UNIQUE INDEX IF NOT EXISTS finalizations_end ON finalizations(session_id, created);
CREATE TABLE IF NOT EXISTS capture_cursors (
    session_id TEXT PRIMARY KEY,
    cursor INTEGER NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS transcripts (
    name TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    offset INTEGER NOT NULL
);
PRAGMA user_version = 2;
"""
VERSION = 2
