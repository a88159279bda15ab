"""The conversation log and promotion over HTTP, on a real loopback server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from service.app import create_app
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def api(workspace: Workspace) -> Iterator[httpx.Client]:
    config = workspace.config_path.read_text()
    no_detector = "[memory.substrate]\nscanner_detector = false\n"
    workspace.config_path.write_text(config.replace("[memory.substrate]\n", no_detector, 1))
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        wait_for_startup_maintain(client)
        yield client


def say(api: httpx.Client, session: str, text: str, **extra: object) -> dict[str, object]:
    response = api.post(
        f"/v1/conversations/{session}/messages",
        json={"messages": [{"role": "user", "text": text}], **extra},
    )
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def test_turns_are_logged_and_a_third_session_promotes(api: httpx.Client) -> None:
    first = say(api, "s1", "I prefer TypeScript")
    assert first["session_id"] == "s1" and len(first["ids"]) == 1  # type: ignore[arg-type]
    say(api, "s2", "Default to TypeScript")
    third = say(api, "s3", "Use TypeScript by default")
    assert third["promotions"][0]["action"] == "create"  # type: ignore[index]
    records = api.get("/v1/promotions").json()["records"]
    assert [(r["content"], r["kind"], r["status"]) for r in records] == [
        ("Prefer TypeScript.", "preference", "active")
    ]
    assert records[0]["evidence_sessions"] == ["s1", "s2", "s3"]
    assert records[0]["superseded_by"] is None
    card = api.post("/v1/memory/card", json={"message": "which language?"}).json()
    assert "Prefer TypeScript." in card["profile"]


def test_a_child_session_is_logged_but_never_promotes(api: httpx.Client) -> None:
    say(api, "root", "hello")
    child = say(api, "child", "I prefer TypeScript", parent_id="root")
    assert child["promotions"] == []
    session = api.get("/v1/sessions/child").json()
    assert session["parent_id"] == "root" and session["messages"][0]["direct"] is True


def test_ending_a_session_records_why(api: httpx.Client) -> None:
    say(api, "s1", "hello")
    ended = api.post("/v1/conversations/s1/end", json={"reason": "reset"}).json()
    assert ended["end_reason"] == "reset" and ended["ended"] is not None
    bad = api.post("/v1/conversations/s1/end", json={"reason": "bored"})
    assert bad.status_code == 422


def test_a_direct_card_turn_is_logged_after_the_answer(api: httpx.Client) -> None:
    for s in ("a", "b"):
        say(api, s, "Keep replies concise")
    card = api.post(
        "/v1/memory/card",
        json={"message": "I prefer concise replies", "conversation_id": "c", "direct": True},
    )
    assert card.status_code == 200
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        records = api.get("/v1/promotions").json()["records"]
        if records:
            break
        time.sleep(0.05)
    assert [r["content"] for r in records] == ["Prefer concise replies."]


def test_explain_and_forget(api: httpx.Client) -> None:
    for s in ("s1", "s2", "s3"):
        say(api, s, "I prefer TypeScript")
    report = api.post("/v1/promotions/explain", json={"text": "Default to TypeScript"}).json()
    [row] = report["candidates"]
    assert row["key"] == "prefer typescript" and row["category"] == "language-default"
    assert set(row["evidence_sessions"]) == {"s1", "s2", "s3"} and row["promotes"]
    promotion_id = row["record"]["id"]
    forgotten = api.post(f"/v1/promotions/{promotion_id}/forget").json()
    assert forgotten["forgot"] == promotion_id and "TypeScript" not in json.dumps(forgotten)
    card = api.post("/v1/memory/card", json={"message": "which language?"}).json()
    assert "Prefer TypeScript" not in card["profile"]
    again = api.post(f"/v1/promotions/{promotion_id}/forget")  # a repeat says so
    assert again.status_code == 200 and again.json()["already_forgotten"]
