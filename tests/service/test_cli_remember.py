"""`memory remember --explain` and `--json`: how a text was read, and the same
answer the HTTP route gives; words passed on are said to be kept as a note."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import Workspace, read_buffer
from substrate.config import Settings


@pytest.fixture
def ws(workspace: Workspace) -> str:
    return str(workspace.root)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_json_answers_the_voice_and_the_speaker(ws: str, settings: Settings) -> None:
    code, out, _ = run("remember", "--workspace", ws, "--json", "Karim said he moved to Oslo.")
    assert code == 0
    answer = json.loads(out)
    assert (answer["voice"], answer["speaker"]) == ("passed_on", "Karim")
    assert answer["id"] in {e.id for e in read_buffer(settings)} and "reading" not in answer
    code, out, _ = run("remember", "--workspace", ws, "--json", "--explain", "I moved to Leith.")
    reading = json.loads(out)["reading"]
    assert (reading["voice"], reading["slot"], reading["value"], reading["kind"]) == (
        "own",
        "home",
        "leith",
        "assertion",
    )


def test_explain_says_which_reading_was_taken(ws: str) -> None:
    _, out, _ = run("remember", "--workspace", ws, "--explain", "I left Brightwater last week.")
    lines = out.splitlines()
    assert lines[1:] == [
        "voice: your own words",
        "about: you",
        "statement: cessation",
        "slot: employer (family work)",
        "ends: brightwater",
    ]
    _, out, _ = run("remember", "--workspace", ws, "--explain", "If I moved to Berlin I'd cycle.")
    assert "voice: passed on (hypothetical)" in out and "takes none of your facts" in out


def test_a_plain_remember_says_on_stderr_when_words_are_passed_on(ws: str) -> None:
    code, out, err = run("remember", "--workspace", ws, "My boss wrote: 'I moved to Berlin'")
    assert code == 0 and len(out.split()) == 1
    assert "kept as my boss's words (pasted): a note that takes none of your facts" in err
    _, _, err = run("remember", "--workspace", ws, "I moved to Leith.")
    assert err == ""
