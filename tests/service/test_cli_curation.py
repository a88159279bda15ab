"""The curation operator controls from the CLI and over HTTP: one implementation."""

from __future__ import annotations

import json
import time

import httpx
from click.testing import CliRunner

from service.app import create_app
from service.cli import cli
from service.settings_loader import build_settings
from substrate import Workspace
from substrate.curation import curate
from substrate.llm import open_chat_client
from substrate.sessions import NewMessage, open_session_log
from tests.llm_server import ScriptedLLM
from tests.service.served import served, wait_for_startup_maintain
from tests.service.test_conversations import runtime


def seed(workspace: Workspace, llm: ScriptedLLM) -> None:
    workspace.config_path.write_text(
        "[memory.substrate]\nscanner_detector = false\n"
        f'[memory.substrate.llm]\nbase_url = "{llm.url}"\nmodel = "scripted"\ntimeout_s = 2.0\n'
    )
    settings = build_settings(workspace.root)
    log = open_session_log(settings.workspace)
    a, b = log.append(
        "s1", [NewMessage("user", t, True) for t in ("I'm vegetarian.", "I might like jazz.")], 1.0
    )
    llm.say(
        {
            "facts": [
                {
                    "text": "The user is vegetarian.",
                    "evidence": [{"message_id": a, "span": "I'm vegetarian"}],
                    "target": "user",
                    "confidence": 0.9,
                    "risk": "low",
                    "sensitive": False,
                },
                {
                    "text": "The user may like jazz.",
                    "evidence": [{"message_id": b, "span": "I might like jazz"}],
                    "target": "user",
                    "confidence": 0.4,
                    "risk": "low",
                    "sensitive": False,
                },
            ]
        }
    )
    client = open_chat_client(settings)
    assert client is not None
    curate(settings, log, client, "s1", cutoff=b)
    client.close()
    log.close()


def test_review_apply_recent_and_undo_from_the_cli(
    workspace: Workspace, llm_server: ScriptedLLM
) -> None:
    seed(workspace, llm_server)
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    queue = json.loads(runner.invoke(cli, ["review", *ws, "--json"]).stdout)["candidates"]
    assert [c["text"] for c in queue] == ["The user may like jazz."]
    assert set(queue[0]) >= {"id", "text", "reason"}
    assert runner.invoke(cli, ["apply", *ws, queue[0]["id"]]).exit_code == 0
    ops = json.loads(runner.invoke(cli, ["recent", *ws, "--json"]).stdout)["operations"]
    assert {op["text"] for op in ops} == {"The user is vegetarian.", "The user may like jazz."}
    assert all(set(op) >= {"id", "text", "target"} for op in ops)
    undone = runner.invoke(cli, ["undo", *ws, ops[0]["id"]])
    assert undone.exit_code == 0, undone.output
    again = runner.invoke(cli, ["undo", *ws, ops[0]["id"]])
    assert again.exit_code != 0 and "not applied" in again.output
    offline = runner.invoke(
        cli, ["populate", "--workspace", str(workspace.root), "--session", "nope"]
    )
    assert offline.exit_code != 0


def test_the_same_controls_over_http(workspace: Workspace, llm_server: ScriptedLLM) -> None:
    seed(workspace, llm_server)
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        wait_for_startup_maintain(client)
        [waiting] = client.get("/v1/curation/review").json()["candidates"]
        rejected = client.post(f"/v1/curation/{waiting['id']}/reject").json()
        assert rejected["status"] == "rejected"
        assert client.get("/v1/curation/review").json()["candidates"] == []
        [op] = client.get("/v1/curation/recent").json()["operations"]
        assert client.post(f"/v1/curation/{op['id']}/undo").json()["status"] == "undone"
        assert client.post("/v1/curation/c-nope/apply").status_code == 404


def test_ending_a_session_over_http_finalizes_it_on_the_worker(
    workspace: Workspace, llm_server: ScriptedLLM
) -> None:
    workspace.config_path.write_text(
        "[memory.substrate]\nscanner_detector = false\n"
        f'[memory.substrate.llm]\nbase_url = "{llm_server.url}"\nmodel = "scripted"\n'
        "timeout_s = 2.0\n"
    )
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    runner = CliRunner()
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        wait_for_startup_maintain(client)
        said = client.post(
            "/v1/conversations/s1/messages",
            json={"messages": [{"role": "user", "text": "I'm vegetarian."}]},
        ).json()
        [mid] = said["ids"]
        llm_server.say(
            {
                "facts": [
                    {
                        "text": "The user is vegetarian.",
                        "evidence": [{"message_id": mid, "span": "I'm vegetarian"}],
                        "target": "user",
                        "confidence": 0.9,
                        "risk": "low",
                        "sensitive": False,
                    }
                ]
            }
        )
        assert client.post("/v1/conversations/s1/end", json={"reason": "exit"}).status_code == 200
        deadline = time.monotonic() + 60
        rows: list[dict[str, object]] = []
        while time.monotonic() < deadline:
            listed = runner.invoke(
                cli, ["finalization", "list", "--workspace", str(workspace.root), "--json"]
            )
            rows = json.loads(listed.stdout)["finalizations"]
            if rows and rows[0]["status"] == "done":
                break
            time.sleep(0.1)
        assert rows and rows[0]["status"] == "done", rows
        ops = client.get("/v1/curation/recent").json()["operations"]
        assert [op["text"] for op in ops] == ["The user is vegetarian."]


def test_status_counts_without_transcript_text(
    workspace: Workspace, llm_server: ScriptedLLM
) -> None:
    seed(workspace, llm_server)
    shown = CliRunner().invoke(cli, ["status", "--workspace", str(workspace.root), "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["sessions"] == 1 and data["messages"] == 2 and data["model_configured"]
    assert data["candidates"] == {"applied": 1, "pending": 1}
    assert data["profile"]["USER.md"]["chars"] > 0
    assert "vegetarian" not in shown.stdout and "jazz" not in shown.stdout


def test_mode_is_shown_set_and_checked(workspace: Workspace, llm_server: ScriptedLLM) -> None:
    seed(workspace, llm_server)
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    assert "curation mode: auto" in runner.invoke(cli, ["mode", *ws]).stdout
    assert "curation mode: review" in runner.invoke(cli, ["mode", *ws, "review"]).stdout
    assert build_settings(workspace.root).tuning.curation_mode == "review"
    assert "scanner_detector = false" in workspace.config_path.read_text()  # the rest kept
    assert runner.invoke(cli, ["mode", *ws, "sometimes"]).exit_code == 64


def test_forget_by_candidate_id_and_by_text(workspace: Workspace, llm_server: ScriptedLLM) -> None:
    seed(workspace, llm_server)
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    user_md = workspace.memory_dir / "profile" / "USER.md"
    [op] = json.loads(runner.invoke(cli, ["recent", *ws, "--json"]).stdout)["operations"]
    user_md.write_text(user_md.read_text() + "- Likes jazz.\n")  # a hand edit meanwhile
    assert runner.invoke(cli, ["forget", *ws, op["id"]]).exit_code == 0
    assert "vegetarian" not in user_md.read_text() and "- Likes jazz." in user_md.read_text()
    assert runner.invoke(cli, ["forget", *ws, "Likes jazz."]).exit_code == 0
    assert "jazz" not in user_md.read_text()
    missing = runner.invoke(cli, ["forget", *ws, "Never said this."])
    assert missing.exit_code != 0 and "nothing to forget" in missing.output


def test_edit_rewords_an_applied_line_and_undo_takes_the_edit_back(
    workspace: Workspace, llm_server: ScriptedLLM
) -> None:
    seed(workspace, llm_server)
    runner = CliRunner()
    ws = ["--workspace", str(workspace.root)]
    user_md = workspace.memory_dir / "profile" / "USER.md"
    [op] = json.loads(runner.invoke(cli, ["recent", *ws, "--json"]).stdout)["operations"]
    edited = runner.invoke(cli, ["edit", *ws, op["id"], "The user eats no meat or fish."])
    assert edited.exit_code == 0, edited.output
    assert "- The user eats no meat or fish." in user_md.read_text()
    assert "vegetarian" not in user_md.read_text()
    assert runner.invoke(cli, ["undo", *ws, op["id"]]).exit_code == 0
    assert "meat" not in user_md.read_text()
    injected = runner.invoke(cli, ["edit", *ws, op["id"], "anything"])
    assert injected.exit_code != 0 and "not applied" in injected.output


def test_the_rest_of_the_controls_over_http(workspace: Workspace, llm_server: ScriptedLLM) -> None:
    seed(workspace, llm_server)
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        wait_for_startup_maintain(client)
        assert client.get("/v1/curation/mode").json() == {"mode": "auto"}
        assert client.get("/v1/curation/status").json()["candidates"] == {
            "applied": 1,
            "pending": 1,
        }
        [op] = client.get("/v1/curation/recent").json()["operations"]
        edited = client.post(f"/v1/curation/{op['id']}/edit", json={"text": "Eats no meat."})
        assert edited.json()["text"] == "Eats no meat."
        forgot = client.post("/v1/curation/forget", json={"what": op["id"]}).json()
        assert forgot["forgot"] == op["id"] and "meat" not in json.dumps(forgot)  # ids only
        assert forgot["files"] == ["USER.md"] and forgot["derived"]["candidates"] == [op["id"]]
        assert "meat" not in (workspace.memory_dir / "profile" / "USER.md").read_text()
        assert client.post("/v1/curation/mode", json={"mode": "review"}).status_code == 200
        assert 'curation_mode = "review"' in workspace.config_path.read_text()
        assert client.post("/v1/curation/mode", json={"mode": "never"}).status_code == 422
        assert client.get("/v1/curation/finalizations").json() == {"finalizations": []}
        missing = client.post("/v1/curation/populate", json={"session_id": "nope"})
        assert missing.status_code == 422


def test_compact_without_a_file_says_what_to_type(workspace: Workspace) -> None:
    done = CliRunner().invoke(cli, ["compact", "--workspace", str(workspace.root)])
    assert done.exit_code == 64
    assert "give a FILE to compact (`memory compact USER.md`)" in done.output
    assert "not both" not in done.output
