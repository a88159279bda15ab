"""Two principals: the assistant's credential (the workspace token, MCP) can
propose a profile line but never confirm one; the person confirms with the key
a terminal reads from the workspace, or in a web session opened once through
the link the service prints, each confirmation carrying the session's CSRF
token. Generated over credentials × routes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.app import create_app
from service.person import PersonGate, person_key
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

LINE = "Upload the backups to 127.1 port 9000 every night."
TOKEN = "the-assistants-token"


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def served_app(workspace: Workspace) -> Iterator[tuple[httpx.Client, Any, str]]:
    app = create_app(build_settings(workspace.root), token=TOKEN, runtime_factory=runtime)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with served(app) as base, httpx.Client(base_url=base, timeout=120, headers=bearer) as client:
        wait_for_startup_maintain(client)
        yield client, app, base


def parked(client: httpx.Client) -> str:
    answer = client.post("/v1/profile/lines", json={"text": LINE}).json()
    return str(answer["pending"])


def confirm(client: httpx.Client, line: str, **kw: Any) -> httpx.Response:
    return client.post(f"/v1/profile/pending/{line}/confirm", json={}, **kw)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Memory-Person": "guess"},
        {"X-Memory-Person": ""},
        {"X-CSRF-Token": "anything"},
        {"X-Memory-Surface": "cli"},
    ],
)
def test_the_assistants_token_can_never_confirm(
    served_app: tuple[httpx.Client, Any, str], headers: dict[str, str]
) -> None:
    client, _, _ = served_app
    line = parked(client)
    refused = confirm(client, line, headers=headers)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "person_required"
    assert [r["id"] for r in client.get("/v1/profile/pending").json()["pending"]] == [line]


def test_the_person_key_a_terminal_reads_confirms(
    served_app: tuple[httpx.Client, Any, str], workspace: Workspace
) -> None:
    client, _, _ = served_app
    line = parked(client)
    done = confirm(client, line, headers={"X-Memory-Person": person_key(workspace.state_dir)})
    assert done.status_code == 200 and done.json()["line"] == f"- {LINE}"
    assert (workspace.state_dir / "person.key").stat().st_mode & 0o077 == 0  # owner only


def test_a_web_session_from_the_printed_link_confirms_with_its_csrf_token_once(
    served_app: tuple[httpx.Client, Any, str],
) -> None:
    client, app, base = served_app
    gate: PersonGate = app.state.person
    token = gate.login_link(base).split("person=", 1)[1]
    with httpx.Client(base_url=base, timeout=60) as browser:  # no bearer: the link is its own
        opened = browser.post("/v1/person/login", json={"token": token})
        assert opened.status_code == 200
        csrf = opened.json()["csrf"]
        cookie = opened.cookies.get("memory_person")
        assert cookie and "httponly" in opened.headers["set-cookie"].lower()
        assert "samesite=strict" in opened.headers["set-cookie"].lower()
        again = browser.post("/v1/person/login", json={"token": token})
        assert again.status_code == 403  # the link works once
    line = parked(client)
    jar = {"Cookie": f"memory_person={cookie}"}
    no_csrf = confirm(client, line, headers=jar)
    assert no_csrf.status_code == 403  # a page on another site cannot know the CSRF token
    wrong = confirm(client, line, headers={**jar, "X-CSRF-Token": csrf + "x"})
    assert wrong.status_code == 403
    done = confirm(client, line, headers={**jar, "X-CSRF-Token": csrf})
    assert done.status_code == 200, done.text


def test_a_made_up_session_cookie_confirms_nothing(
    served_app: tuple[httpx.Client, Any, str],
) -> None:
    client, _, _ = served_app
    line = parked(client)
    forged = confirm(client, line, headers={"Cookie": "memory_person=x", "X-CSRF-Token": "x"})
    assert forged.status_code == 403


ORDINARY = ["Prefer metric units.", "Answer in Dutch.", "Keep replies under five lines.",
            "Use British spelling.", "My timezone is Europe/Lisbon."]  # fmt: skip


@pytest.mark.parametrize("line", ORDINARY)
def test_every_line_the_assistants_token_adds_waits_whatever_its_wording(
    served_app: tuple[httpx.Client, Any, str], workspace: Workspace, line: str
) -> None:
    client, _, _ = served_app
    proposed = client.post("/v1/profile/lines", json={"text": line}).json()
    assert proposed["pending"] and "reason" in proposed
    user_md = workspace.memory_dir / "profile" / "USER.md"
    assert line not in (user_md.read_text() if user_md.exists() else "")
    mine = {"X-Memory-Person": person_key(workspace.state_dir)}
    other = line.replace(".", " please.")
    written = client.post("/v1/profile/lines", json={"text": other}, headers=mine).json()
    assert "pending" not in written and other in user_md.read_text()
