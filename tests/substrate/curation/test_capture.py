"""Capture into the buffer: the retrospective and the idle sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.settings_loader import build_settings
from substrate import Settings, Workspace, init_workspace, read_buffer
from substrate.curation import capture, capture_session
from substrate.llm import ChatClient
from substrate.sessions import NewMessage, SessionLog
from tests.llm_server import ScriptedLLM
from tests.service.test_conversations import runtime
from tests.substrate.curation.scripted import configure

NOW = 1_780_000_000.0  # a past moment: a fact may not be dated ahead of the clock


@pytest.fixture
def settings_llm(workspace: Workspace, llm_server: ScriptedLLM) -> Settings:
    return configure(workspace, llm_server.url, "sweep_enabled = true\n")


def fact(mid: int, span: str, text: str, sensitive: bool = False) -> dict[str, Any]:
    return {
        "text": text,
        "evidence": [{"message_id": mid, "span": span}],
        "target": "user",
        "confidence": 0.9,
        "risk": "low",
        "sensitive": sensitive,
    }


def test_captured_facts_reach_the_buffer_once_and_sensitive_ones_never(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    a, b = log.append(
        "s1",
        [NewMessage("user", t, True) for t in ("We moved to Porto in May.", "My salary is 90k.")],
        NOW - 3600,
    )
    llm_server.say(
        {
            "facts": [
                fact(a, "We moved to Porto in May", "The user moved to Porto in May."),
                fact(b, "My salary is 90k", "The user's salary is 90k.", sensitive=True),
            ]
        }
    )
    done = capture_session(settings_llm, log, client, "s1", NOW)
    assert (done["saved"], done["skipped"]) == (1, 1)
    assert [e.text for e in read_buffer(settings_llm)] == ["The user moved to Porto in May."]
    requests = len(llm_server.requests)
    capture_session(settings_llm, log, client, "s1", NOW)  # nothing unread: no model call
    assert len(llm_server.requests) == requests
    assert len(read_buffer(settings_llm)) == 1


def test_our_own_card_echoed_back_is_never_captured(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    [mid] = log.append(
        "s1",
        [NewMessage("user", "ok <memory><page>Sam prefers green tea</page></memory>", True)],
        NOW - 3600,
    )
    llm_server.say({"facts": [fact(mid, "Sam prefers green tea", "Sam prefers green tea.")]})
    done = capture_session(settings_llm, log, client, "s1", NOW)
    assert done["saved"] == 0 and done["dropped"] == 1
    assert read_buffer(settings_llm) == []


def test_the_sweep_waits_for_a_conversation_to_go_quiet(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    [old] = log.append("quiet", [NewMessage("user", "I teach piano.", True)], NOW - 3600)
    log.append("busy", [NewMessage("user", "I am typing right now.", True)], NOW - 30)
    llm_server.say({"facts": [fact(old, "I teach piano", "The user teaches piano.")]})
    swept = capture(settings_llm, log, client, "sweep", clock=NOW)
    assert [s["session"] for s in swept] == ["quiet"]
    llm_server.say({"facts": []})
    later = capture(settings_llm, log, client, "retrospective", clock=NOW)
    assert [s["session"] for s in later] == ["busy"]  # the retrospective does not wait


def test_the_service_queues_capture_only_with_a_model(
    settings_llm: Settings, tmp_path: Path
) -> None:
    with_model = runtime(settings_llm)
    assert with_model.schedule_capture(now=0.0) == ["sweep"]
    assert with_model.schedule_capture(now=10.0) == []  # a minute between sweeps
    with_model.close()
    init_workspace(tmp_path / "offline")
    offline = runtime(build_settings(tmp_path / "offline"))
    assert offline.schedule_capture(now=0.0) == []
    offline.close()


def test_captured_facts_keep_their_provenance_on_the_page_and_in_the_card(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    from substrate.consolidation import consolidate
    from substrate.pages import fact_bullets, load_page_index, split_facts

    [mid] = log.append("s1", [NewMessage("user", "I moved to Porto in May.", True)], NOW - 60)
    llm_server.say(
        {"facts": [fact(mid, "I moved to Porto in May", "The user moved to Porto in May.")]}
    )
    capture_session(settings_llm, log, client, "s1", NOW)
    [entry] = read_buffer(settings_llm)
    assert entry.source == "captured"
    raw = settings_llm.workspace.buffer_path.read_text()
    assert f"The user moved to Porto in May. <!-- src:captured from:{mid} -->" in raw
    consolidate(settings_llm, client=None)
    [(_slug, page)] = load_page_index(settings_llm.workspace).entries.items()
    text = (settings_llm.workspace.concepts_dir / page.path).read_text()
    [bullet] = fact_bullets(text)
    assert bullet.source == "captured" and "src:captured" in text
    _, items = split_facts(text)
    assert [i.text for i in items] == [
        "- [28 May 2026] (captured from a conversation) The user moved to Porto in May."
    ]
