"""Hostile exports: every one is refused whole with one error naming the
conversation, message and field, and nothing is logged; the log's readers
survive a bad line already on disk, and `doctor` names it; identity is by
conversation and message, never by position."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ingest.chat_import import import_conversations
from service.cli import cli
from substrate import InvalidInputError, Settings
from substrate.sessions import open_session_log, transcript_path


def node(role: Any, text: Any, at: Any = 1_700_000_000.0, **extra: Any) -> dict[str, Any]:
    return {
        "message": {"author": {"role": role}, "create_time": at, "content": {"parts": [text]}},
        "parent": None,
        "children": [],
        **extra,
    }


def chatgpt(ident: str, nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    names = list(nodes)
    for parent, child in itertools.pairwise(names):
        nodes[parent] = {**nodes[parent], "children": [child]}
        nodes[child] = {**nodes[child], "parent": parent}
    return {"id": ident, "title": "t", "mapping": nodes, "current_node": names[-1]}


GOOD = chatgpt("good", {"a": node("user", "I moved to Leeds."), "b": node("assistant", "Nice.")})


def hostile(bad: dict[str, Any]) -> str:
    return json.dumps([GOOD, bad], ensure_ascii=False)


CASES: dict[str, tuple[str, str, str]] = {
    "string author": (
        "chatgpt",
        hostile(
            {
                **chatgpt("c2", {"a": node("user", "hi")}),
                "mapping": {
                    "a": {
                        **node("user", "hi"),
                        "message": {
                            "author": "user",
                            "content": {"parts": ["hi"]},
                            "create_time": 1.0,
                        },
                    }
                },
            }
        ),
        "conversations[1] (c2).mapping['a'].message.author: expected an object",
    ),
    "unhashable children": (
        "chatgpt",
        hostile({"id": "c3", "mapping": {"a": {**node("user", "hi"), "children": [["x"]]}}}),
        "conversations[1] (c3).mapping['a'].children: expected a list of node ids",
    ),
    "deep nesting": ("chatgpt", "[" * 100_000 + "]" * 100_000, "nested too deep"),
    "time 1e300": (
        "chatgpt",
        hostile(chatgpt("c4", {"a": node("user", "hi", 1e300)})),
        "conversations[1] (c4).mapping['a'].message.create_time: 1e+300 is outside 1970",
    ),
    "time -1e15": (
        "chatgpt",
        hostile(chatgpt("c5", {"a": node("user", "hi", -1e15)})),
        "create_time: -1000000000000000.0 is outside 1970",
    ),
    "Infinity": (
        "claude",
        '[{"uuid": "u1", "chat_messages": [{"sender": "human", "text": "hi", "created_at": Infinity}]}]',
        "conversations[0] (u1).chat_messages[0].created_at: inf is outside",
    ),
    "NaN": (
        "jsonl",
        '{"session": "s", "role": "user", "text": "hi", "time": NaN}\n',
        ":1: time: nan is outside",
    ),
    "lone surrogate": (
        "claude",
        '[{"uuid": "u2", "chat_messages": [{"sender": "human", "text": "hi \\ud800", "created_at": 5}]}]',
        "conversations[0] (u2).chat_messages[0].text: not valid UTF-8 text",
    ),
    "a year 2099": (
        "jsonl",
        '{"session": "s", "role": "user", "text": "hi", "time": "2099-01-01T00:00:00Z"}\n',
        ":1: time: '2099-01-01T00:00:00Z' is outside",
    ),
    "number text": (
        "claude",
        '[{"uuid": "u3", "chat_messages": [{"sender": "human", "text": 5, "created_at": 5}]}]',
        "chat_messages[0].text: must be a non-empty string",
    ),
    "string parts": (
        "chatgpt",
        hostile(
            {
                "id": "c6",
                "mapping": {
                    "a": {
                        **node("user", "x"),
                        "message": {
                            "author": {"role": "user"},
                            "content": {"parts": "hi"},
                            "create_time": 1.0,
                        },
                    }
                },
            }
        ),
        "content.parts: expected a list",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_export_is_refused_whole_and_nothing_is_logged(
    settings: Settings, tmp_path: Path, case: str
) -> None:
    fmt, content, said = CASES[case]
    path = tmp_path / "export.json"
    path.write_text(content, encoding="utf-8", errors="surrogatepass")
    log = open_session_log(settings.workspace)
    try:
        with pytest.raises(InvalidInputError) as raised:
            import_conversations(log, fmt, path)
        assert said in raised.value.message
        assert log.count() == 0
    finally:
        log.close()
    assert not list((settings.workspace.memory_dir / "conversations").glob("*.jsonl"))


def test_two_conversations_with_one_id_are_two_sessions_and_a_rerun_adds_nothing(
    settings: Settings, tmp_path: Path
) -> None:
    first = chatgpt("same", {"a": node("user", "I moved to Leeds.")})
    second = chatgpt("same", {"a": node("user", "My sister lives in Oslo.", 1_700_000_100.0)})
    path = tmp_path / "export.json"
    path.write_text(json.dumps([first, second]))
    log = open_session_log(settings.workspace)
    try:
        done = import_conversations(log, "chatgpt", path)
        assert done.appended == 2 and done.new_sessions == [
            "import:chatgpt:same",
            "import:chatgpt:same~2",
        ]
        again = import_conversations(log, "chatgpt", path)
        assert again.appended == 0 and again.already == 2
        texts = [m.text for s in done.new_sessions for m in log.messages(s)]
        assert texts == ["I moved to Leeds.", "My sister lives in Oslo."]
    finally:
        log.close()


def test_a_message_is_found_again_wherever_it_stands(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    rows = [("user", "one", 1.0), ("assistant", "two", 2.0), ("user", "three", 3.0)]
    path.write_text(
        "".join(
            json.dumps({"session": "s", "role": r, "text": t, "time": at}) + "\n"
            for r, t, at in rows
        )
    )
    log = open_session_log(settings.workspace)
    try:
        import_conversations(log, "jsonl", path)
        # Upstream, the first message was deleted and a new one added at the end.
        rows = [*rows[1:], ("user", "four", 4.0)]
        path.write_text(
            "".join(
                json.dumps({"session": "s", "role": r, "text": t, "time": at}) + "\n"
                for r, t, at in rows
            )
        )
        done = import_conversations(log, "jsonl", path)
        assert done.appended == 1 and done.already == 2
        assert [m.text for m in log.messages("import:jsonl:s")] == ["one", "two", "three", "four"]
    finally:
        log.close()


def test_a_bad_line_already_in_the_log_is_skipped_by_readers_and_named_by_doctor(
    settings: Settings,
) -> None:
    log = open_session_log(settings.workspace)
    from substrate.sessions import NewMessage

    log.append("s1", [NewMessage("user", "I moved to Leeds.", True)], 1_700_000_000.0)
    log.close()
    path = transcript_path(settings.workspace, "s1")
    with path.open("a") as f:
        f.write('{"message": 99, "role": "user", "text": "x", "at": 1e300, "direct": true}\n')
    (settings.workspace.state_dir / "sessions.sqlite").unlink()
    root = str(settings.workspace.root)
    listed = CliRunner().invoke(cli, ["sessions", "--workspace", root, "--json"])
    assert listed.exit_code == 0, listed.output
    shown = CliRunner().invoke(cli, ["sessions", "show", "s1", "--workspace", root, "--json"])
    assert shown.exit_code == 0 and "Leeds" in shown.output and "1e300" not in shown.output
    doctor = CliRunner().invoke(cli, ["doctor", "--workspace", root, "--json"])
    kinds = [p["kind"] for p in json.loads(doctor.stdout)["problems"]]
    assert "bad_log_line" in kinds


def test_the_log_refuses_to_write_what_a_reader_could_not_read(settings: Settings) -> None:
    from substrate.sessions import NewMessage

    log = open_session_log(settings.workspace)
    try:
        with pytest.raises(InvalidInputError, match=r"at = .* is no time"):
            log.append("s1", [NewMessage("user", "hi", True, float("inf"))], 1.0)
        assert log.count() == 0
    finally:
        log.close()


def test_a_rerun_captures_what_a_stopped_import_logged(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    row = {"session": "s", "role": "user", "text": "I moved to Leeds in May.", "time": 1.7e9}
    path.write_text(json.dumps(row) + "\n")
    log = open_session_log(settings.workspace)
    try:
        import_conversations(log, "jsonl", path)  # logged; the run stopped before capture
    finally:
        log.close()
    root = str(settings.workspace.root)
    again = CliRunner().invoke(cli, ["import", "jsonl", str(path), "--workspace", root, "--json"])
    assert again.exit_code == 0, again.output
    done = json.loads(again.stdout)
    assert done["appended"] == 0 and done["already_in_the_log"] == 1 and done["captured"] == 1
    from substrate import read_buffer

    assert ["Leeds" in e.text for e in read_buffer(settings)] == [True]
