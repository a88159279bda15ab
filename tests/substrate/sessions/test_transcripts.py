"""The transcripts are the log's authority: the database under `.substrate/` is
rebuilt from them whenever it is missing, behind, or deleted under a process."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from substrate import Workspace
from substrate.errors import NotFoundError, StoreUnavailableError
from substrate.sessions import (
    NewMessage,
    SessionLog,
    finalizations as queue,
    transcript_files,
    transcript_path,
)
from tests.mounts import read_only


def user(text: str) -> NewMessage:
    return NewMessage("user", text, True)


def seeded(workspace: Workspace) -> tuple[SessionLog, list[int]]:
    log = SessionLog(workspace)
    ids = log.append(
        "s1", [user("I moved to Porto"), NewMessage("assistant", "Nice!", False)], 10.0
    )
    log.append("child", [user("a delegated task")], 11.0, parent_id="s1")
    log.end("s1", "exit", 20.0)
    [row] = queue.listed(log)
    queue.finish(log, row.id, "skipped", "no-model", 21.0)
    log.set_capture_cursor("s1", ids[-1], 22.0)
    return log, ids


def state(log: SessionLog) -> object:
    return (
        [s.as_json() for s in log.sessions()],
        [m.as_json() for m in log.messages("s1")],
        [(f.session_id, f.status, f.code, f.cutoff_message_id) for f in queue.listed(log)],
        log.capture_cursor("s1"),
        [m.text for m in log.search(["porto"])],
    )


def test_deleting_the_derived_state_loses_no_conversation(workspace: Workspace) -> None:
    log, _ = seeded(workspace)
    before = state(log)
    log.close()
    shutil.rmtree(workspace.state_dir)
    again = SessionLog(workspace)
    assert state(again) == before


def test_a_database_deleted_under_a_running_process_is_rebuilt_not_written_into(
    workspace: Workspace,
) -> None:
    log, _ = seeded(workspace)
    before = state(log)
    shutil.rmtree(workspace.state_dir)
    assert state(log) == before and log.resets == 1
    log.append("s1", [user("and then Lisbon")], 30.0)
    fresh = SessionLog(workspace)
    assert [m.text for m in fresh.messages("s1")][-1] == "and then Lisbon"


def test_the_transcript_is_plain_json_lines_a_person_can_read(workspace: Workspace) -> None:
    seeded(workspace)
    text = transcript_path(workspace, "s1").read_text()
    assert '"text": "I moved to Porto"' in text and '"end": "exit"' in text
    assert sorted(p.name.split("-")[0] for p, _ in transcript_files(workspace)) == ["child", "s1"]


def test_a_torn_last_line_is_skipped_and_cut_before_the_next_append(workspace: Workspace) -> None:
    log, _ = seeded(workspace)
    path = transcript_path(workspace, "s1")
    with open(path, "a") as fh:
        fh.write('{"message": 99, "ro')  # a kill mid-append
    log.close()
    shutil.rmtree(workspace.state_dir)
    again = SessionLog(workspace)
    assert [m.text for m in again.messages("s1")] == ["I moved to Porto", "Nice!"]
    again.append("s1", [user("later")], 40.0)
    assert path.read_text().endswith("}\n") and '"message": 99,' not in path.read_text()
    assert [m.text for m in SessionLog(workspace).messages("s1")][-1] == "later"


def test_ending_twice_queues_one_finalization_and_an_unknown_session_is_not_found(
    workspace: Workspace,
) -> None:
    log = SessionLog(workspace)
    log.append("s", [user("hi")], 1.0)
    log.end("s", "exit", 2.0)
    log.end("s", "exit", 3.0)
    assert len(queue.listed(log)) == 1
    log.append("s", [user("resumed")], 4.0)
    log.end("s", "idle", 5.0)  # something was said since: a new cutoff
    assert len(queue.listed(log)) == 2
    with pytest.raises(NotFoundError, match="no session 'ghost'"):
        log.end("ghost", "exit", 6.0)


def test_retention_prunes_the_transcripts_too(workspace: Workspace) -> None:
    log = SessionLog(workspace)
    log.append("old", [user("ancient")], 1.0)
    log.append("new", [user("ancient history"), user("recent")], 100.0)
    assert log.prune(50.0) == 1
    assert not transcript_path(workspace, "old").exists()
    shutil.rmtree(workspace.state_dir)
    assert [m.text for m in SessionLog(workspace).search(["ancient"])] == ["ancient history"]


def test_a_log_from_before_the_transcripts_is_written_out_once(workspace: Workspace) -> None:
    workspace.state_dir.mkdir(exist_ok=True)
    db = sqlite3.connect(workspace.state_dir / "sessions.sqlite")
    db.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_id TEXT, started REAL, ended REAL,"
        " end_reason TEXT);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT,"
        " text TEXT, folded TEXT, at REAL, direct INTEGER);"
        "CREATE TABLE finalizations (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT,"
        " reason TEXT, cutoff_count INTEGER, cutoff_message_id INTEGER, status TEXT,"
        " attempts INTEGER, lease_until REAL, cursor INTEGER, code TEXT, created REAL,"
        " updated REAL);"
        "CREATE TABLE capture_cursors (session_id TEXT PRIMARY KEY, cursor INTEGER, updated REAL);"
        "INSERT INTO sessions VALUES ('old', NULL, 1.0, 5.0, 'exit');"
        "INSERT INTO messages VALUES (1, 'old', 'user', 'I prefer tea', 'i prefer tea', 2.0, 1);"
        "INSERT INTO finalizations VALUES (1, 'old', 'exit', 1, 1, 'done', 1, NULL, 1, NULL, 5.0, 6.0);"
    )
    db.commit()
    db.close()
    log = SessionLog(workspace)
    assert [m.text for m in log.messages("old")] == ["I prefer tea"]
    assert [f.status for f in queue.listed(log)] == ["done"]
    assert transcript_path(workspace, "old").exists()


def test_a_read_only_workspace_is_read_from_its_transcripts(workspace: Workspace) -> None:
    seeded(workspace)[0].close()
    shutil.rmtree(workspace.state_dir)
    with read_only(workspace.root):
        with pytest.raises(StoreUnavailableError):
            SessionLog(workspace)
        log = SessionLog(workspace, read_only=True)
        assert next(m.text for m in log.messages("s1")) == "I moved to Porto"
        with pytest.raises(StoreUnavailableError, match="read-only"):
            log.append("s1", [user("no")], 1.0)
