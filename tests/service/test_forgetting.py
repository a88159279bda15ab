"""Forgetting from every surface, through a real service: what capture took from
a forgotten conversation leaves every card, a message is forgotten by its id
alone (HTTP, CLI through the service, MCP), a bad id is refused naming the
rule, a purge leaves no byte of it anywhere under the workspace, and doctor
proves nothing of it is left."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from mcp import Client

from service.app import create_app
from service.cli import cli
from service.mcp import build_server
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from substrate.lineage import read_tombstones
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

MARKER = "Xylophanta"
FINISHED = ("done", "failed", "skipped")


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


def holding(root: Path, words: str) -> list[str]:
    needle = words.casefold().encode()
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and needle in path.read_bytes().lower():
            found.append(str(path.relative_to(root)))
    return sorted(found)


@pytest.fixture
def api(workspace: Workspace) -> Iterator[httpx.Client]:
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        wait_for_startup_maintain(client)
        yield client


def chat(api: httpx.Client, session: str, *turns: str) -> list[int]:
    body = {"messages": [{"role": "user", "text": t} for t in turns]}
    ids: list[int] = api.post(f"/v1/conversations/{session}/messages", json=body).json()["ids"]
    api.post(f"/v1/conversations/{session}/end", json={"reason": "exit"})
    return ids


def captured(api: httpx.Client, session: str, timeout_s: float = 30.0) -> None:
    """Until the session's finalization (the offline capture) has run."""
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        listed = api.get("/v1/curation/finalizations").json()["finalizations"]
        if any(f["session_id"] == session and f["status"] in FINISHED for f in listed):
            return
        time.sleep(0.1)
    raise AssertionError(f"session {session} was never finalized")


def test_a_forgotten_conversation_takes_what_capture_learned_from_every_card(
    api: httpx.Client, workspace: Workspace
) -> None:
    chat(api, "chat-a", f"My neighbour's parrot is called {MARKER}.", "I live in Leith.")
    captured(api, "chat-a")
    card = api.post("/v1/memory/card", json={"message": "what is the parrot called?"}).json()
    assert MARKER in card["info"]  # pending in <info>, or filed on a page
    done = api.post("/v1/conversations/chat-a/forget", json={}).json()
    assert done["forgot"] == "session" and len(done["derived"]["facts"]) == 2
    card = api.post("/v1/memory/card", json={"message": "what is the parrot called?"}).json()
    assert MARKER not in json.dumps(card)
    api.post("/v1/consolidation/run-now", json={"wait": True})
    assert not any(MARKER.lower() in p.name for p in workspace.concepts_dir.rglob("*.md"))
    purged = api.post("/v1/memory/purge", json={}).json()
    assert purged["freed"] >= 0 and {r["what"] for r in purged["rewrote"]} >= {
        "index store",
        "conversation log",
    }
    assert holding(workspace.root, MARKER) == []
    problems = api.get("/v1/memory/problems").json()["problems"]
    assert not [p for p in problems if p["kind"] == "forgotten_residue"]


def test_a_message_is_forgotten_by_its_id_alone_on_every_surface_and_bad_ids_refused(
    api: httpx.Client, workspace: Workspace
) -> None:
    ids = chat(api, "chat-b", "I drive a blue Skoda.", "I cycle to work.", "I swim on Fridays.")
    first = api.post(f"/v1/messages/{ids[0]}/forget", headers={"X-Memory-Surface": "web"})
    assert first.status_code == 200 and first.json()["messages"] == [ids[0]]
    grave = read_tombstones(workspace).messages[ids[0]]
    assert grave["via"] == "web" and grave["session"] == "chat-b" and "text" not in grave
    url = str(api.base_url).rstrip("/")
    runner = CliRunner()
    args = ["forget", "--message", str(ids[1]), "--url", url, "--workspace", str(workspace.root)]
    through = runner.invoke(cli, args)
    assert through.exit_code == 0, through.output
    assert f"messages {ids[1]}" in through.output
    assert read_tombstones(workspace).messages[ids[1]]["via"] == "cli"
    again = runner.invoke(cli, args)
    assert again.exit_code == 0 and "already forgotten on" in again.output
    for bad in (str(2**63), "99999999999999999999999", "0", "12x", "-5"):
        refused = api.post(f"/v1/messages/{bad}/forget")
        assert refused.status_code == 422, (bad, refused.text)
        assert "1 ≤ id < 2^63" in refused.json()["error"]["message"]
    body = api.post("/v1/conversations/chat-b/forget", json={"message_id": 2**64})
    assert body.status_code == 422 and "2^63" in body.json()["error"]["message"]
    huge = runner.invoke(cli, ["forget", "--message", "99999999999999999999999", "--url", url])
    assert huge.exit_code == 64 and "Traceback" not in huge.output
    assert "9223372036854775807" in huge.output  # the range it takes


def test_mcp_forgets_a_message_by_its_id_alone_and_names_the_rule_for_a_bad_one(
    workspace: Workspace,
) -> None:
    settings = build_settings(workspace.root)
    rt = runtime(settings)
    try:
        [mid] = rt.memory.log_turns("chat-m", [_said("I keep bees in Fife.")])[0]
        server = build_server(settings, lambda: rt.memory)

        async def main() -> None:
            async with Client(server) as client:
                done = await client.call_tool("forget_conversation", {"message_id": mid})
                assert not done.is_error, done.content
                result: dict[str, Any] = done.structured_content["result"]  # type: ignore[index]
                assert result["session"] == "chat-m" and result["messages"] == [mid]
                bad = await client.call_tool("forget_conversation", {"message_id": 2**63})
                assert bad.is_error and "1 ≤ id < 2^63" in bad.content[0].text  # type: ignore[union-attr]

        asyncio.run(main())
        assert read_tombstones(workspace).messages[mid]["via"] == "mcp"
    finally:
        rt.close()


def _said(text: str) -> Any:
    from substrate.sessions import NewMessage

    return NewMessage("user", text, True)


def test_a_reimported_export_skips_what_was_forgotten_unless_asked(workspace: Workspace) -> None:
    export = workspace.root.parent / "chat.jsonl"
    lines = [
        {"session": "trip", "role": "user", "text": f"My parrot {MARKER} talks.", "time": 1.7e9},
        {"session": "trip", "role": "assistant", "text": "Fun!", "time": 1.7e9 + 5},
        {"session": "work", "role": "user", "text": "I work at Kestrel.", "time": 1.7e9 + 60},
    ]
    export.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ws = ["--workspace", str(workspace.root)]
    runner = CliRunner()
    first = json.loads(runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"]).stdout)
    assert first["appended"] == 3
    runner.invoke(cli, ["forget", "--session", "import:jsonl:trip", *ws])
    again = runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"])
    done = json.loads(again.stdout)
    assert (done["appended"], done["skipped_as_forgotten"]) == (0, 2)
    assert holding(workspace.memory_dir, MARKER) == []
    back = runner.invoke(
        cli, ["import", "jsonl", str(export), *ws, "--include-forgotten", "--json"]
    )
    assert json.loads(back.stdout)["appended"] == 2


def test_doctor_reports_residue_of_a_forgotten_message_and_fix_finishes_the_forget(
    workspace: Workspace,
) -> None:
    settings = build_settings(workspace.root)
    rt = runtime(settings)
    try:
        [mid] = rt.memory.log_turns("chat-d", [_said("I keep bees in Fife.")])[0]
        rt.memory.forget_conversation(message_id=mid)
    finally:
        rt.close()
    buffer = workspace.buffer_path  # a captured fact naming the forgotten message, back by hand
    buffer.write_text(
        buffer.read_text()
        + f"- [2026-01-02 10:00] I keep bees in Fife. <!-- src:captured from:{mid} -->\n"
    )
    ws = ["--workspace", str(workspace.root), "--json"]
    found = CliRunner().invoke(cli, ["doctor", *ws])
    kinds = [p["kind"] for p in json.loads(found.stdout)["problems"]]
    assert found.exit_code == 1 and "forgotten_residue" in kinds
    fixed = CliRunner().invoke(cli, ["doctor", "--fix", *ws])
    assert "forgotten_residue" not in [p["kind"] for p in json.loads(fixed.stdout)["problems"]]
    assert "bees" not in buffer.read_text()


def test_a_forgotten_fact_leaves_no_byte_anywhere_once_purged(
    api: httpx.Client, workspace: Workspace
) -> None:
    words = "My bike lock code is Qzm424242x."
    api.post("/v1/memory/remember", json={"text": words})
    api.post("/v1/memory/remember", json={"text": "I live in Leith."})
    api.post("/v1/consolidation/run-now", json={"wait": True})
    hits = api.post("/v1/memory/search", json={"query": "bike lock code", "k": 3}).json()["hits"]
    assert "Qzm424242x" in json.dumps(hits)
    gone = api.post("/v1/memory/forget", json={"what": "bike lock code"}).json()
    assert len(gone["facts"]) == 1 and gone["forgot"] == "text"
    assert "Qzm424242x" not in json.dumps(gone) and "bike" not in json.dumps(gone)  # ids only
    hits = api.post("/v1/memory/search", json={"query": "bike lock code", "k": 3}).json()["hits"]
    assert "Qzm424242x" not in json.dumps(hits)
    assert holding(workspace.memory_dir, "Qzm424242x") == []  # at once, under memory/
    api.post("/v1/memory/purge", json={})
    assert holding(workspace.root, "Qzm424242x") == []  # and in every derived store
    assert holding(workspace.root, "Leith") != []  # the search for bytes does find what stays


def test_purge_runs_as_a_lowest_priority_job_on_a_schedule_and_after_a_session_forget(
    workspace: Workspace,
) -> None:
    from service.jobs import INDEX_LANE
    from service.served_jobs import PURGE

    settings = build_settings(workspace.root)
    rt = runtime(settings)
    try:
        queue = rt.queue
        assert rt.schedule_purge(now=1_000.0) is False  # the first tick starts the interval
        assert rt.schedule_purge(now=1_000.0 + 23 * 3600) is False
        assert rt.schedule_purge(now=1_000.0 + 25 * 3600) is True
        rt.memory.log_turns("chat-p", [_said("I keep bees in Fife.")])
        rt.memory.forget_conversation("chat-p")
        again = queue.enqueue(PURGE, {"reason": "schedule"})
        assert again.deduped  # coalesced: one purge queued, whoever asked
        queue.enqueue("memory_v3_maintain", {"reason": "pages changed"})
        first = queue.claim(lane=INDEX_LANE)
        assert first is not None and first.kind == "memory_v3_maintain"  # purge goes last
    finally:
        rt.close()


@pytest.mark.parametrize("cut", ["copying", "moved aside", "swapped"])
def test_a_compaction_killed_at_any_step_leaves_no_old_shard_behind(
    workspace: Workspace, cut: str
) -> None:
    """The three places a kill can cut a compaction: while copying (a partial
    copy beside the shard), after the shard was moved aside (the copy complete,
    not yet in place), after the swap (the old shard not yet removed). Doctor
    names the leftover, and opening the store or `--fix` removes it."""
    import shutil

    settings = build_settings(workspace.root)
    rt = runtime(settings)
    try:
        rt.memory.remember("My bike lock code is Qzm424242x.")
        rt.maintain()
    finally:
        rt.close()
    shard = workspace.index_dir / "qdrant"
    fresh, old = shard.with_name("qdrant.compacting"), shard.with_name("qdrant.compacted")
    if cut == "copying":
        shutil.copytree(shard, fresh)
    elif cut == "moved aside":
        shutil.copytree(shard, fresh)
        shard.rename(old)
    else:
        shutil.copytree(shard, old)
    ws = ["--workspace", str(workspace.root), "--json"]
    found = CliRunner().invoke(cli, ["doctor", *ws])
    problems = json.loads(found.stdout)["problems"]
    assert any(p["kind"] == "forgotten_residue" and "compaction" in p["message"] for p in problems)
    CliRunner().invoke(cli, ["doctor", "--fix", *ws])
    assert not fresh.exists() and not old.exists() and (shard / "wal").exists()
    again = CliRunner().invoke(cli, ["doctor", *ws])
    assert not any("compaction" in p["message"] for p in json.loads(again.stdout)["problems"])


@pytest.mark.parametrize(
    ("change", "session", "shift", "text"),
    [
        ("a new conversation id", "trip-2", 0.0, "My parrot {m} talks."),
        ("a final stop changed", "trip", 0.0, "My parrot {m} talks!"),
        ("quotes and spacing changed", "trip", 0.0, "My  parrot “{m}” talks"),
        ("a time shifted by a second", "trip", 1.0, "My parrot {m} talks."),
        ("all of them at once", "renamed", 59.0, "my parrot {m} TALKS"),
    ],
)
def test_a_forgotten_message_is_skipped_when_an_export_rewords_its_frame(
    workspace: Workspace, change: str, session: str, shift: float, text: str
) -> None:
    export = workspace.root.parent / "chat.jsonl"
    said = {"session": "trip", "role": "user", "text": f"My parrot {MARKER} talks.", "time": 1.7e9}
    export.write_text(json.dumps(said) + "\n")
    ws = ["--workspace", str(workspace.root)]
    runner = CliRunner()
    runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"])
    runner.invoke(cli, ["forget", "--session", "import:jsonl:trip", *ws])
    again = {**said, "session": session, "time": 1.7e9 + shift, "text": text.format(m=MARKER)}
    export.write_text(json.dumps(again) + "\n")
    done = json.loads(runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"]).stdout)
    assert (done["appended"], done["skipped_as_forgotten"]) == (0, 1), change
    assert holding(workspace.memory_dir, MARKER) == []
    other = {**said, "session": "later", "time": 1.7e9 + 86_400}  # the same words a day later
    export.write_text(json.dumps(other) + "\n")
    later = json.loads(runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"]).stdout)
    assert later["appended"] == 1  # said again another day: a new message


def test_doctor_names_request_answers_a_killed_forget_left_and_fix_empties_them(
    api: httpx.Client, workspace: Workspace
) -> None:
    """A forget empties the request-key store after it writes its tombstone; a
    kill between the two leaves answers made before the forget (a remember's
    answer holds its words). Doctor names them without their words, `--fix`
    empties the store; answers made after the last forget are no residue."""
    import sqlite3

    from service.replays import replay_store

    words = "My bike lock code is Qzm424242x."
    key = {"Idempotency-Key": "r-1"}
    assert api.post("/v1/memory/remember", json={"text": words}, headers=key).status_code == 200
    store = replay_store(workspace.state_dir)
    with sqlite3.connect(workspace.state_dir / "requests.sqlite") as db:
        kept = db.execute("SELECT id, request, status, answer FROM replays").fetchall()
    assert len(kept) == 1
    api.post("/v1/memory/forget", json={"what": "bike lock code"})
    assert store.count() == 0
    with sqlite3.connect(workspace.state_dir / "requests.sqlite") as db:  # the kill: put back
        db.execute("INSERT INTO replays VALUES (?, ?, ?, ?, 0)", kept[0])
    ws = ["--workspace", str(workspace.root), "--json"]
    problems = json.loads(CliRunner().invoke(cli, ["doctor", *ws]).stdout)["problems"]
    named = [p for p in problems if "request-key store" in p["message"]]
    assert [p["kind"] for p in named] == ["forgotten_residue"]
    assert "Qzm424242x" not in json.dumps(problems)
    CliRunner().invoke(cli, ["doctor", "--fix", *ws])
    assert store.count() == 0
    api.post(
        "/v1/memory/remember", json={"text": "I live in Leith."}, headers={"Idempotency-Key": "r-2"}
    )
    again = json.loads(CliRunner().invoke(cli, ["doctor", *ws]).stdout)["problems"]
    assert not any("request-key store" in p["message"] for p in again)


@pytest.mark.parametrize("cut", [2, 5, 9])
def test_a_forgotten_message_split_over_two_messages_is_skipped_on_reimport(
    workspace: Workspace, cut: int
) -> None:
    """An export that splits a forgotten message in two (at any word, in a new
    conversation, seconds apart): both pieces are its first and last words, so
    both are skipped; another message said beside them is appended."""
    export = workspace.root.parent / "chat.jsonl"
    words = f"We drove to Narvik on Friday and my parrot {MARKER} talked the whole way."
    said = {"session": "trip", "role": "user", "text": words, "time": 1.7e9}
    export.write_text(json.dumps(said) + "\n")
    ws = ["--workspace", str(workspace.root)]
    runner = CliRunner()
    runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"])
    runner.invoke(cli, ["forget", "--session", "import:jsonl:trip", *ws])
    head, tail = " ".join(words.split()[:cut]), " ".join(words.split()[cut:])
    rows = [
        {"session": "split", "role": "user", "text": head, "time": 1.7e9 + 3},
        {"session": "split", "role": "user", "text": tail, "time": 1.7e9 + 4},
        {
            "session": "split",
            "role": "user",
            "text": "The ferry was late again.",
            "time": 1.7e9 + 5,
        },
    ]
    export.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = json.loads(runner.invoke(cli, ["import", "jsonl", str(export), *ws, "--json"]).stdout)
    assert (done["appended"], done["skipped_as_forgotten"]) == (1, 2), cut
    assert holding(workspace.memory_dir, MARKER) == []
