"""The finalization queue: the cutoff an ending captures, one run at a time,
leases recovered, failures retried from the cursor, terminal rows bounded."""

from __future__ import annotations

from typing import Any

import pytest

from substrate import Settings
from substrate.curation import run_finalizations
from substrate.errors import InvalidInputError
from substrate.intake import read_buffer
from substrate.llm import ChatClient
from substrate.sessions import NewMessage, SessionLog, finalizations as queue, open_session_log
from substrate.sessions.transcripts import read_records, transcript_path
from tests.llm_server import ScriptedLLM


def vegetarian(message_id: int) -> dict[str, Any]:
    return {
        "facts": [
            {
                "text": "The user is vegetarian.",
                "evidence": [{"message_id": message_id, "span": "I'm vegetarian"}],
                "target": "user",
                "confidence": 0.9,
                "risk": "low",
                "sensitive": False,
            }
        ]
    }


def test_an_ending_captures_its_cutoff_and_later_messages_are_not_read(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    [mid] = log.append("s1", [NewMessage("user", "I'm vegetarian.", True)], 1.0)
    log.end("s1", "exit", 2.0)
    log.append("s1", [NewMessage("user", "Actually I eat fish now.", True)], 3.0)  # resumed
    [row] = queue.listed(log)
    assert (row.status, row.cutoff_count, row.cutoff_message_id) == ("queued", 1, mid)
    llm_server.say(vegetarian(mid))
    [ran] = run_finalizations(settings_llm, log, client)
    assert ran["status"] == "done" and len(ran["applied"]) == 1
    assert "fish" not in llm_server.requests[0]["messages"][-1]["content"]
    assert queue.listed(log)[0].status == "done"


def test_one_finalization_runs_at_a_time_and_an_expired_lease_is_recovered(
    log: SessionLog,
) -> None:
    for s in ("a", "b"):
        log.append(s, [NewMessage("user", "hi", True)], 1.0)
        log.end(s, "new", 2.0)
    first = queue.claim(log, 10.0, lease_s=60)
    assert first is not None and first.session_id == "a"
    assert queue.claim(log, 20.0) is None  # a is running under its lease
    again = queue.claim(log, 100.0)  # a's worker died: its lease expired
    assert again is not None and again.session_id == "a" and again.attempts == 2


def test_a_failure_keeps_the_cursor_and_is_retried_then_terminal(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    ids = log.append("s1", [NewMessage("user", f"message {i}", True) for i in range(45)], 1.0)
    log.end("s1", "idle", 2.0)
    llm_server.say({"facts": []})  # the first 40 messages
    llm_server.fail(500)
    [ran] = run_finalizations(settings_llm, log, client)
    assert ran["status"] == "queued"
    row = queue.listed(log)[0]
    assert row.cursor == ids[39] and "TransientError" in str(row.code)
    llm_server.say({"facts": []})
    [ran] = run_finalizations(settings_llm, log, client)
    assert ran["status"] == "done"
    last = llm_server.requests[-1]["messages"][-1]["content"]
    assert f'"id": {ids[40]}' in last and f'"id": {ids[39]}' not in last


def test_after_the_last_attempt_a_failure_is_terminal_until_retried(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    log.append("s1", [NewMessage("user", "hello", True)], 1.0)
    log.end("s1", "exit", 2.0)
    for _ in range(queue.MAX_ATTEMPTS):
        llm_server.fail(500)
        run_finalizations(settings_llm, log, client)
    row = queue.listed(log)[0]
    assert row.status == "failed" and row.attempts == queue.MAX_ATTEMPTS
    assert run_finalizations(settings_llm, log, client) == []
    queue.retry(log, row.id, 5.0)
    llm_server.say({"facts": []})
    assert run_finalizations(settings_llm, log, client)[0]["status"] == "done"
    with pytest.raises(InvalidInputError, match="only failed or skipped"):
        queue.retry(log, row.id, 6.0)


def test_without_a_model_a_finalization_captures_the_users_durable_statements(
    settings: Settings,
) -> None:
    """The offline extractor reads the person's own turns up to the cutoff: never
    the assistant's, never a forwarded text, never our own echoed blocks."""
    log = open_session_log(settings.workspace)
    day = 1_699_999_980.0  # a whole minute: the buffer keeps minutes
    log.append(
        "s1",
        [
            NewMessage("user", "hello! By the way, I moved to Porto last month.", True),
            NewMessage("assistant", "I live in the cloud and I love Lisbon.", False),
            NewMessage("user", "I adopted a beagle called Miso.", False),  # forwarded
            NewMessage(
                "user", "<memory>\n- I work at Initech as a tester.\n</memory> Can you help?", True
            ),
        ],
        day,
    )
    log.end("s1", "exit", day + 60)
    log.append("s1", [NewMessage("user", "I started learning the cello.", True)], day + 120)
    [ran] = run_finalizations(settings, log, None)
    assert ran["status"] == "done" and ran["code"].startswith("offline") and ran["saved"] == 1
    [entry] = read_buffer(settings)
    assert entry.text == "I moved to Porto last month." and entry.source == "captured"
    assert entry.at.timestamp() == day  # the message's own time
    records, _ = read_records(transcript_path(settings.workspace, "s1"))
    record = [r for r in records if "facts" in r]
    first = log.messages("s1")[0].id
    assert list(record[0]["facts"].items()) == [(entry.id, first)]  # the message it came from
    log.close()


def test_only_the_newest_terminal_rows_are_kept(log: SessionLog) -> None:
    for i in range(5):
        log.append(f"s{i}", [NewMessage("user", "hi", True)], 1.0)
        log.end(f"s{i}", "new", 2.0)
    for row in queue.listed(log):
        queue.finish(log, row.id, "done", None, 3.0)
    assert queue.prune(log, keep=2) == 3
    assert [r.session_id for r in queue.listed(log)] == ["s4", "s3"]
