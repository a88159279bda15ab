"""Correcting and forgetting from every surface: the CLI on the real models, the
HTTP routes on a real loopback server, profile lines with their records, and
`memory doctor` after each."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import cli
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace, remember
from substrate.consolidation import consolidate
from substrate.consolidation.views import stale_views
from substrate.curation.store import CurationStore
from substrate.pages import fact_bullets, load_page_index
from substrate.promotion import PromotionStore, promote_turn
from substrate.sessions import NewMessage, open_session_log
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain


def cli_json(workspace: Workspace, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, [*args, "--workspace", str(workspace.root), "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result.output


def page_text(workspace: Workspace, slug: str) -> str:
    return (workspace.concepts_dir / f"{slug}.md").read_text()


@pytest.mark.slow
def test_the_cli_corrects_forgets_and_tells_the_history(workspace: Workspace) -> None:
    settings = build_settings(workspace.root)
    home = remember(settings, "I live in Leeds, in a flat near Hyde Park.").id
    remember(settings, "I use Vim as my editor.")
    consolidate(settings)
    facts = cli_json(workspace, "facts", "me/home")["facts"]
    assert [f["id"] for f in facts] == [home]

    fixed = cli_json(workspace, "correct", home, "I live in Leeds, near Roundhay Park.")
    new_id = fixed["fact"]["id"]
    assert [f["id"] for f in cli_json(workspace, "facts", "me/home")["facts"]] == [new_id]
    hits = cli_json(workspace, "search", "Roundhay Park")
    assert hits[0]["slug"] == "me/home"

    refused = cli_json(workspace, "forget", "I ", code=1)
    assert "at least 3 characters" in refused
    gone = cli_json(workspace, "forget", "near Roundhay Park")
    assert [f["id"] for f in gone["facts"]] == [new_id]
    assert "Roundhay" not in page_text(workspace, "me/home")  # erased, not marked
    assert new_id not in page_text(workspace, "me/home")
    hits = cli_json(workspace, "search", "Roundhay Park")
    assert not any("Roundhay" in (h["excerpt"] or "") for h in hits)
    card = cli_json(workspace, "card", "where do I live near the park?")
    assert "Roundhay" not in card["memory"]

    events = cli_json(workspace, "history", home)["events"]
    assert [e["op"] for e in events] == ["file:add", "correct"]
    page_ops = [e["op"] for e in cli_json(workspace, "history", "me/home")["events"]]
    assert page_ops[-2:] == ["correct", "forget"]
    path = workspace.concepts_dir / "me/home.md"
    path.write_text(path.read_text() + "\nA line I added myself.\n")
    cli_json(workspace, "maintain")
    cli_json(workspace, "maintain")  # seen once, not again
    events = cli_json(workspace, "history", "me/home")["events"]
    assert [e["op"] for e in events][-3:] == ["correct", "forget", "hand_edit"]
    assert events[-1]["via"] == "seen by maintain"
    status, report = doctor(workspace)
    assert status == 0, report


def doctor(workspace: Workspace, *flags: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["doctor", "--workspace", str(workspace.root), "--json", *flags]
    )
    return result.exit_code, json.loads(result.stdout)


def promoted(workspace: Workspace, text: str) -> Settings:
    workspace.config_path.write_text("[memory.substrate]\nscanner_detector = false\n")
    settings = build_settings(workspace.root)
    log = open_session_log(settings.workspace)
    for i, s in enumerate(("s1", "s2", "s3")):
        log.append(s, [NewMessage("user", text, True)], 100.0 + i)
        promote_turn(settings, log, s, text, 100.0 + i)
    log.close()
    return settings


def test_forgetting_a_profile_line_by_text_forgets_its_promotion_record(
    workspace: Workspace,
) -> None:
    settings = promoted(workspace, "I prefer dark mode")
    user = workspace.memory_dir / "profile" / "USER.md"
    assert "- Prefer dark mode." in user.read_text()
    done = cli_json(workspace, "forget", "Prefer dark mode.")
    assert done["files"] == ["USER.md"] and done["facts"] == []
    assert "Prefer dark mode" not in user.read_text()
    assert PromotionStore.load(settings.workspace).records == {}  # erased: no words kept
    missing = cli_json(workspace, "forget", "Prefer light mode.", code=1)
    assert "nothing to forget" in missing


@pytest.mark.slow
def test_doctor_marks_records_forgotten_when_their_line_was_taken_out_by_hand(
    workspace: Workspace,
) -> None:
    settings = promoted(workspace, "I prefer dark mode")
    user = workspace.memory_dir / "profile" / "USER.md"
    by_hand = user.read_text().replace("- Prefer dark mode.\n", "")
    user.write_text(by_hand)
    status, report = doctor(workspace)
    assert status == 1 and [p["kind"] for p in report["problems"]] == ["promotion_record"]
    status, report = doctor(workspace, "--fix")
    assert status == 0, report
    assert user.read_text() == by_hand  # the person's file is never changed
    [record] = PromotionStore.load(settings.workspace).records.values()
    assert record.status == "forgotten"
    assert CurationStore.load(settings.workspace).candidates == []


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def api(workspace: Workspace, write_page: PageWriter) -> Iterator[httpx.Client]:
    write_page("people/sam", "---\ntitle: Sam\n---\n# Sam\n\nSam is allergic to shellfish.\n")
    write_page(
        "places/lisbon", "---\ntitle: Lisbon\n---\nSam lives in Lisbon, see [[people/sam]].\n"
    )
    settings = build_settings(workspace.root)
    remember(settings, "Sam started judo on Tuesdays.", ["people/sam"])
    consolidate(settings)
    app = create_app(settings, runtime_factory=runtime)
    with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        wait_for_startup_maintain(client)
        yield client


def test_the_http_routes_tend_facts_and_pages(api: httpx.Client, workspace: Workspace) -> None:
    [fact] = api.get("/v1/memory/facts/people/sam").json()["facts"]
    fixed = api.post(
        "/v1/memory/correct", json={"fact_id": fact["id"], "text": "Sam started karate."}
    )
    assert fixed.status_code == 200, fixed.text
    new_id = fixed.json()["fact"]["id"]
    [current] = api.get("/v1/memory/facts/people/sam").json()["facts"]
    assert current["id"] == new_id
    gone = api.post("/v1/memory/forget", json={"what": new_id}).json()
    assert gone["facts"][0]["id"] == new_id
    assert api.get("/v1/memory/facts/people/sam").json()["facts"] == []
    history = api.get(f"/v1/memory/history/{fact['id']}").json()
    assert [e["op"] for e in history["events"]] == ["file:add", "correct"]
    url = str(api.base_url).rstrip("/")
    remote = cli_json(workspace, "history", fact["id"], "--url", url)  # the CLI, through it
    assert remote == history
    missing = api.post("/v1/memory/forget", json={"what": "a fact nobody said"})
    assert missing.status_code == 404

    page = api.get("/v1/memory/pages/people/sam").json()
    edit = {
        "slug": "people/sam",
        "expected_sha256": page["sha256"],
        "old": "shellfish",
        "new": "peanuts",
    }
    assert api.post("/v1/memory/pages/edit", json=edit).status_code == 200
    stale = api.post("/v1/memory/pages/edit", json=edit)
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "changed_on_disk"
    hits = api.post("/v1/memory/search", json={"query": "peanuts", "k": 1}).json()["hits"]
    assert hits[0]["slug"] == "people/sam"

    moved = api.post("/v1/memory/pages/move", json={"slug": "people/sam", "to": "people/sam-lee"})
    assert moved.json()["relinked"] == ["places/lisbon"]
    assert "[[people/sam-lee]]" in page_text(workspace, "places/lisbon")
    api.post("/v1/memory/pages/pin", json={"slug": "people/sam-lee", "core": True})
    assert "core: true" in page_text(workspace, "people/sam-lee")
    deleted = api.post("/v1/memory/pages/delete", json={"slug": "people/sam-lee"}).json()
    assert api.get("/v1/memory/trash").json()["trash"][0]["name"] == deleted["trash"]
    assert api.get("/v1/memory/pages/people/sam-lee").status_code == 404
    api.post("/v1/memory/pages/restore", json={"name": "people/sam-lee"})
    bullets = fact_bullets(page_text(workspace, "people/sam-lee"))
    assert {b.status for b in bullets} == {"superseded"}  # the forgotten correction: erased
    assert "karate" not in page_text(workspace, "people/sam-lee")
    written = api.post(
        "/v1/memory/pages/write", json={"slug": "notes/new", "content": "# New\n\nA new note.\n"}
    )
    assert written.status_code == 200 and (workspace.concepts_dir / "notes/new.md").exists()


@pytest.mark.slow
def test_doctor_finishes_the_links_of_a_move_killed_before_it_rewrote_them(
    workspace: Workspace, write_page: PageWriter
) -> None:
    from ingest.page_ops import move_page

    write_page("people/sam", "---\ntitle: Sam\n---\nSam.\n")
    lisbon = write_page("places/lisbon", "---\ntitle: Lisbon\n---\nSee [[people/sam]].\n")
    move_page(build_settings(workspace.root), "people/sam", "people/sam-lee")
    lisbon.write_text("---\ntitle: Lisbon\n---\nSee [[people/sam]].\n")  # as if killed
    status, report = doctor(workspace)
    assert status == 1 and "moved_link" in [p["kind"] for p in report["problems"]]
    status, report = doctor(workspace, "--fix")
    assert status == 0, report
    assert "[[people/sam-lee]]" in lisbon.read_text()


def test_a_card_after_forgetting_a_pages_last_fact_answers_without_it(
    workspace: Workspace,
) -> None:
    settings = build_settings(workspace.root)
    remember(settings, "I'm planning a trip to Lisbon in March.")
    consolidate(settings)
    rt = runtime(settings)
    try:
        rt.memory.maintain()
        assert "Lisbon" in rt.memory.card("my trip to Lisbon")["memory"]
        rt.memory.forget("trip to Lisbon")
        for turn in ("hello", "my trip to Lisbon in March"):
            card = rt.memory.card(turn)
            assert "Lisbon" not in card["memory"] + card.get("info", "")
    finally:
        rt.close()
    assert stale_views(settings, load_page_index(settings.workspace)) == []
