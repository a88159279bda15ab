"""Chat-history import: each format from a small export written from its public
description, idempotent by message, roles from structure, capture after it,
clear errors, and a kill -9 midway that leaves every message once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingest.chat_import import import_conversations, read_conversations
from service.cli import cli
from substrate import InvalidInputError, Settings, Workspace, read_buffer
from substrate.sessions import open_session_log

FIXTURES = Path(__file__).parent / "fixtures"


def run(workspace: Workspace, *args: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(cli, [*args, "--workspace", str(workspace.root), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_chatgpt_reads_the_branch_the_person_saw_with_roles_from_structure() -> None:
    [conversation], skipped = read_conversations("chatgpt", FIXTURES / "chatgpt_conversations.json")
    roles = [(m.role, m.text[:20]) for m in conversation.messages]
    assert roles == [
        ("user", "I moved to Leeds las"),
        ("assistant", "Welcome to Leeds! I "),
        ("user", "assistant: I adopted"),  # the text's "assistant:" does not make it one
        ("assistant", "Biscuit is a lovely "),
    ]
    assert conversation.messages[0].at == 1714550400.0 and skipped == 0
    assert conversation.session == "import:chatgpt:6633a1b2-0000-4000-8000-000000000001"


def test_claude_and_jsonl_read_their_own_shapes() -> None:
    [claude], _ = read_conversations("claude", FIXTURES / "claude_conversations.json")
    assert [m.role for m in claude.messages] == ["user", "assistant", "user"]
    assert claude.messages[2].text.startswith(
        "My partner Jo"
    )  # from `content` when `text` is empty
    sessions, _ = read_conversations("jsonl", FIXTURES / "history.jsonl")
    assert [s.session for s in sessions] == ["import:jsonl:trip", "import:jsonl:diet"]
    assert sessions[0].messages[2].at == 1709287300.0


def test_import_then_capture_files_the_persons_facts_never_the_assistants(
    workspace: Workspace,
) -> None:
    done = run(workspace, "import", "chatgpt", str(FIXTURES / "chatgpt_conversations.json"))
    assert (done["sessions"], done["appended"], done["extractor"]) == (1, 4, "offline")
    facts = {e.text: e for e in read_buffer_of(workspace)}
    assert "I moved to Leeds last month." in facts
    assert facts["I moved to Leeds last month."].source == "captured"
    assert facts["I moved to Leeds last month."].at.year == 2024
    assert not any("cloud" in text for text in facts)  # the assistant's words
    # a turn that opens with another role's line ("assistant: I adopted…") is a
    # pasted transcript from there on: not the person's words, not captured
    assert not any("Biscuit" in text for text in facts)
    again = run(workspace, "import", "chatgpt", str(FIXTURES / "chatgpt_conversations.json"))
    assert (again["appended"], again["already_in_the_log"], again["captured"]) == (0, 4, 0)
    run(workspace, "import", "claude", str(FIXTURES / "claude_conversations.json"))
    run(workspace, "import", "jsonl", str(FIXTURES / "history.jsonl"))
    texts = {e.text for e in read_buffer_of(workspace)}
    assert "I got promoted to staff engineer at Initech this week!" in texts
    assert "My partner Jo is a violinist in the city orchestra." in texts
    assert "I'm planning a trip to Japan next April with my sister." in texts
    assert "أنا نباتية منذ سنتين." in texts
    assert not any("Anthropic" in t or "Kyoto" in t or "pack" in t for t in texts)


def read_buffer_of(workspace: Workspace) -> list:  # type: ignore[type-arg]
    from service.settings_loader import build_settings

    return read_buffer(build_settings(workspace.root))


def test_a_dry_run_writes_nothing(workspace: Workspace) -> None:
    done = run(workspace, "import", "jsonl", str(FIXTURES / "history.jsonl"), "--dry-run")
    assert done["appended"] == 4 and done["dry_run"] is True
    assert not list((workspace.memory_dir / "conversations").glob("*.jsonl"))
    assert read_buffer_of(workspace) == []


@pytest.mark.parametrize(
    ("fmt", "content", "said"),
    [
        ("chatgpt", "{}", "a JSON list of conversations"),
        ("chatgpt", '[{"title": "x"}]', r"conversations\[0\]: a ChatGPT conversation has an id"),
        ("claude", "not json", "not JSON"),
        (
            "jsonl",
            '{"session": "s", "role": "robot", "text": "x", "time": 1}\n',
            ":1: role must be",
        ),
        ("jsonl", '{"session": "s", "role": "user", "text": "x", "time": "noon"}\n', "not an ISO"),
    ],
)
def test_a_bad_file_is_refused_naming_where_and_nothing_is_written(
    settings: Settings, tmp_path: Path, fmt: str, content: str, said: str
) -> None:
    bad = tmp_path / "export.json"
    bad.write_text(content)
    log = open_session_log(settings.workspace)
    try:
        with pytest.raises(InvalidInputError, match=said):
            import_conversations(log, fmt, bad)
        assert log.count() == 0
    finally:
        log.close()


RUNNER = """
import os, sys, time
from pathlib import Path
from ingest.chat_import import import_conversations
from service.settings_loader import build_settings
from substrate.sessions import open_session_log
real = os.fsync
def slowed(fd):
    time.sleep(0.004)
    return real(fd)
os.fsync = slowed
settings = build_settings(Path(sys.argv[1]))
log = open_session_log(settings.workspace)
print("START", flush=True)
import_conversations(log, "jsonl", Path(sys.argv[2]))
print("DONE", flush=True)
"""


def test_kill_9_during_an_import_leaves_every_message_once(
    settings: Settings, tmp_path: Path
) -> None:
    export = tmp_path / "big.jsonl"
    lines = [
        json.dumps({"session": f"s{s}", "role": "user", "text": f"message {s}-{m}", "time": m})
        for s in range(60)
        for m in range(5)
    ]
    export.write_text("\n".join(lines) + "\n")
    for wait in (0.3, 0.6, 0.9):
        with subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(settings.workspace.root), str(export)],
            stdout=subprocess.PIPE,
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()
            time.sleep(wait)
            proc.send_signal(signal.SIGKILL)
        log = open_session_log(settings.workspace)
        texts = [m.text for s in range(60) for m in log.messages(f"import:jsonl:s{s}")]
        log.close()
        assert len(texts) == len(set(texts))  # never twice
        assert len(texts) % 5 == 0  # each conversation whole or absent
    log = open_session_log(settings.workspace)
    try:
        done = import_conversations(log, "jsonl", export)
        texts = [m.text for s in range(60) for m in log.messages(f"import:jsonl:s{s}")]
    finally:
        log.close()
    assert sorted(texts) == sorted(json.loads(line)["text"] for line in lines)
    assert done.already > 0  # the killed runs had imported some


def test_an_import_keeps_each_conversations_title_and_its_own_id_opens_it(
    workspace: Workspace,
) -> None:
    run(workspace, "import", "chatgpt", str(FIXTURES / "chatgpt_conversations.json"))
    run(workspace, "import", "claude", str(FIXTURES / "claude_conversations.json"))
    listed = {s["id"]: s["title"] for s in run(workspace, "sessions", "list")["sessions"]}
    chatgpt = "import:chatgpt:6633a1b2-0000-4000-8000-000000000001"
    titles = json.loads((FIXTURES / "chatgpt_conversations.json").read_text())
    assert listed[chatgpt] == titles[0]["title"]
    [claude] = [s for s in listed if s.startswith("import:claude:")]
    assert (
        listed[claude]
        == json.loads((FIXTURES / "claude_conversations.json").read_text())[0]["name"]
    )
    own = run(workspace, "sessions", "show", "6633a1b2-0000-4000-8000-000000000001")
    assert own["id"] == chatgpt and own["title"] == titles[0]["title"]
    # the log rebuilt from its transcripts keeps the title, and a forget takes it
    (workspace.state_dir / "sessions.sqlite").unlink()
    listed = {s["id"]: s["title"] for s in run(workspace, "sessions", "list")["sessions"]}
    assert listed[chatgpt] == titles[0]["title"]
    run(workspace, "forget", "--session", chatgpt)
    log = open_session_log(workspace, read_only=True)
    assert log.session(chatgpt) is None
    assert titles[0]["title"] not in "".join(
        p.read_text() for p in (workspace.memory_dir / "conversations").glob("*.jsonl")
    )
