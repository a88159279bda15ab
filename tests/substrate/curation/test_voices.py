"""Capture hears only the person: what a turn quotes, forwards, pastes, gives to
transform, holds as code or reports someone saying is never captured as the
person's fact, in English and Arabic; `--explain` says what was skipped and
why; and a model that is down never keeps a conversation from teaching."""

from __future__ import annotations

import pytest

from substrate import Settings
from substrate.curation import capture, explain_capture, run_finalizations
from substrate.curation.statements import durable_statements, read_turn
from substrate.intake import read_buffer
from substrate.llm import ChatClient
from substrate.meaning.voices import (
    CODE,
    FORWARDED,
    PASTED,
    QUOTED,
    REPORTED,
    TRANSFORM,
    own_words,
    voices,
)
from substrate.sessions import NewMessage, SessionLog
from tests.llm_server import ScriptedLLM

THEIRS = "I moved to Berlin in June and started a new job at Acme."
MINE = "I live in Leeds with my wife and our two cats."


@pytest.mark.parametrize(
    ("turn", "why"),
    [
        (f"Forwarded message from Bob: {THEIRS}", FORWARDED),
        (
            f"---------- Forwarded message ---------\nFrom: Bob <bob@example.com>\n\n{THEIRS}",
            FORWARDED,
        ),
        (f"> {THEIRS}", QUOTED),
        (f"Here is the email I got:\n{THEIRS}", PASTED),
        (f"My landlord emailed me this: '{THEIRS}'", PASTED),
        (f"Translate to French: {THEIRS}", TRANSFORM),
        (f"Can you summarise this? {THEIRS}", TRANSFORM),
        (f"Proofread this: {THEIRS}", TRANSFORM),
        (f"```\n{THEIRS}\n```", CODE),
        (f"    {THEIRS}", CODE),
        (f"My sister told me that {THEIRS}", REPORTED),
        ("ترجم إلى الإنجليزية: انتقلت إلى برلين في يونيو وبدأت عملا جديدا.", TRANSFORM),
        ("رسالة محولة من أخي: انتقلت إلى برلين في يونيو وبدأت عملا جديدا.", FORWARDED),
        ("قال أخي إنه انتقل إلى برلين في يونيو.", REPORTED),
        (f"My coworker posted this in Slack:\n{THEIRS}", PASTED),
        (f'"{THEIRS}" — that\'s what Dr. Patel wrote.', QUOTED),
        (f"» {THEIRS}", QUOTED),
        (f"According to my sister, {THEIRS}", REPORTED),
        (f"Bob keeps saying {THEIRS}", REPORTED),
        (f"`{THEIRS}`", CODE),
        (f"Put this into plain English: {THEIRS}", TRANSFORM),
        ("هذه رسالة من صديقي: انتقلت إلى برلين في يونيو.", PASTED),
    ],
)
def test_text_passed_on_is_skipped_and_never_captured(turn: str, why: str) -> None:
    assert why in {span.why for span in voices(turn)}
    captured = " ".join(s.text for s in durable_statements(turn, None))
    assert "Berlin" not in captured and "برلين" not in captured


def test_a_quoted_title_and_a_note_of_ones_own_are_the_persons_words() -> None:
    for turn in ('I love the song "Here Comes the Sun" so much.', f"Note: {MINE}"):
        assert [s.why for s in voices(turn)] == [None]


def test_the_persons_own_words_around_what_they_pass_on_are_still_read() -> None:
    turn = f"{MINE}\n> {THEIRS}\n{MINE.replace('Leeds', 'Leeds, near the park,')}"
    assert [s.why for s in voices(turn)] == [None, QUOTED, None]
    captured = [s.text for s in durable_statements(f"{MINE} Bob said he moved to Berlin.", None)]
    assert captured == [MINE]
    assert own_words(f"Can you help me rewrite my resume? {MINE}")[0].text.endswith(MINE)


def test_explain_says_what_each_turn_gave_and_why_the_rest_was_skipped(
    settings: Settings, log: SessionLog
) -> None:
    log.append(
        "s1",
        [NewMessage("user", f"{MINE} Translate to French: {THEIRS}", True)],
        1.0,
    )
    [turn] = explain_capture(settings, log, "s1")
    assert turn["captured"] == [MINE]
    assert {"text": THEIRS, "why": TRANSFORM} in turn["skipped"]
    assert any(s["why"] == "not a lasting statement about you" for s in turn["skipped"])
    assert [r.why for r in read_turn("Hi!", None)] == ["not a lasting statement about you"]


def test_a_model_that_is_down_leaves_capture_to_the_offline_extractor(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    log.append("s1", [NewMessage("user", MINE, True)], 1.0)
    llm_server.fail(503)
    [done] = capture(settings_llm, log, client, "retrospective", clock=10.0)
    assert done["extractor"] == "offline" and "TransientError" in done["fallback"]
    assert [e.text for e in read_buffer(settings_llm)] == [MINE]
    assert log.capture_cursor("s1") > 0


def test_an_ending_waiting_for_the_model_is_captured_offline_meanwhile(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    log.append("s2", [NewMessage("user", MINE, True)], 1.0)
    log.end("s2", "exit", 2.0)
    llm_server.fail(402, code="insufficient_quota")
    [ran] = run_finalizations(settings_llm, log, client)
    assert ran["status"] == "queued" and ran["captured_offline"] == 1
    assert [e.text for e in read_buffer(settings_llm)] == [MINE]


def test_the_models_extractor_reads_only_the_persons_own_words(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    log.append(
        "s3", [NewMessage("user", f"{MINE}\nForwarded message from Bob: {THEIRS}", True)], 1.0
    )
    llm_server.say({"facts": []})
    capture(settings_llm, log, client, "retrospective", clock=10.0)
    sent = llm_server.requests[-1]["messages"][-1]["content"]
    assert "Leeds" in sent and "Berlin" not in sent
