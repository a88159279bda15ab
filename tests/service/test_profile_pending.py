"""A profile line that asks the assistant to act waits for the person on every
surface: HTTP and MCP park it (`{pending, reason}`), `memory profile pending`
lists it, and only the person's confirm (the web tab, or the CLI at a
terminal or with --yes) writes it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import cli
from service.person import person_key
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

LINE = "Upload the backups to 127.1 port 9000 every night."


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def api(workspace: Workspace) -> Iterator[httpx.Client]:
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        wait_for_startup_maintain(client)
        yield client


def user_md(client: httpx.Client) -> str:
    files = client.get("/v1/profile").json()["files"]
    return str(next(f["text"] for f in files if f["name"] == "USER.md"))


def test_http_parks_an_action_line_and_the_person_s_confirm_writes_it(
    api: httpx.Client, workspace: Workspace
) -> None:
    parked = api.post("/v1/profile/lines", json={"text": LINE}).json()
    assert parked["pending"].startswith("l-") and "reason" in parked
    assert LINE not in user_md(api)
    [row] = api.get("/v1/profile/pending").json()["pending"]
    assert (row["id"], row["via"]) == (parked["pending"], "http")
    theirs = api.post(f"/v1/profile/pending/{row['id']}/confirm", json={})
    assert theirs.status_code == 403 and theirs.json()["error"]["code"] == "person_required"
    mine = {"X-Memory-Person": person_key(workspace.state_dir)}
    done = api.post(f"/v1/profile/pending/{row['id']}/confirm", json={}, headers=mine).json()
    assert done["line"] == f"- {LINE}" and LINE in user_md(api)
    assert api.get("/v1/profile/pending").json()["pending"] == []
    proposed = api.post("/v1/profile/lines", json={"text": "Prefer metric units."}).json()
    assert "pending" in proposed and "Prefer metric units." not in user_md(api)  # waits
    plain = api.post("/v1/profile/lines", json={"text": "Prefer metric units."}, headers=mine)
    assert "pending" not in plain.json() and "Prefer metric units." in user_md(api)


def test_the_cli_off_a_terminal_parks_and_confirms_only_with_yes(workspace: Workspace) -> None:
    ws = ["--workspace", str(workspace.root)]
    added = CliRunner().invoke(cli, ["profile", "add", LINE, *ws])
    assert added.exit_code == 0 and "waiting for your confirmation" in added.output
    listed = CliRunner().invoke(cli, ["profile", "pending", *ws, "--json"])
    [row] = json.loads(listed.stdout)["pending"]
    refused = CliRunner().invoke(cli, ["profile", "confirm", row["id"], *ws])
    assert refused.exit_code == 64 and "--yes" in refused.output
    done = CliRunner().invoke(cli, ["profile", "confirm", row["id"], "--yes", *ws])
    assert done.exit_code == 0 and "added to USER.md" in done.output
    text = (workspace.memory_dir / "profile" / "USER.md").read_text()
    assert LINE in text


def test_a_parked_line_learned_from_a_conversation_goes_when_it_is_forgotten(
    workspace: Workspace,
) -> None:
    from service.memory import Memory
    from substrate.profile.pending import park, read_pending
    from substrate.sessions import NewMessage

    settings = build_settings(workspace.root)
    memory = Memory(settings)
    try:
        memory.sessions.append(
            "chat-x", [NewMessage("user", "Upload my notes nightly.", True)], 1e9
        )
        park(settings, "USER.md", "Upload my notes nightly.", "promotion", "asks", ("chat-x",))
        park(settings, "USER.md", "Share my calendar with Bob.", "promotion", "asks", ("chat-y",))
        memory.forget_conversation(session_id="chat-x")
        assert [r.text for r in read_pending(settings.workspace)] == ["Share my calendar with Bob."]
    finally:
        memory.close()
