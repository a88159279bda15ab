"""An index damaged under a running service heals itself: the store error marks
it degraded (`/healthz` `index`), cards keep answering from the lanes that need
no search, a rebuild from the pages and the log runs in the background, and the
mark clears when it is done: no restart."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from service.app import create_app
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from substrate.index.qdrant_edge import scrub_paths
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def api(workspace: Workspace, write_page: PageWriter) -> Iterator[httpx.Client]:
    for n, thing in enumerate(["kayak", "violin", "sourdough", "bonsai"]):
        write_page(f"hobbies/h{n}", f"---\ntitle: H{n}\n---\nMy {thing} hobby, every weekend.\n")
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        wait_for_startup_maintain(client)
        assert client.get("/healthz").json()["index"] == "ok"
        client.post(
            "/v1/conversations/boat/messages",
            json={"messages": [{"role": "user", "text": "The sloop is moored at Kirkwall."}]},
        )
        client.post("/v1/memory/maintain", json={})
        yield client


def overwrite_heads(folder: Path) -> None:
    """Every file of the store gets garbage over its first bytes (its size kept:
    the files are mapped, and a shorter one would be a fault, not an error)."""
    for path in folder.rglob("*"):
        if path.is_file() and path.stat().st_size:
            with path.open("r+b") as f:
                f.write(b"\x07" * min(64, path.stat().st_size))


def delete_segments(folder: Path) -> None:
    for path in (folder / "segments").rglob("*"):
        if path.is_file():
            path.unlink()


def wait_healed(client: httpx.Client, timeout_s: float = 60) -> str:
    """Why the index was rebuilt, once `/healthz` says `ok` after the rebuild."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = client.get("/healthz").json()["index"]
        run = client.get("/v1/memory/stats").json()["last_runs"].get("memory_v3_maintain", {})
        healed = (run.get("detail") or {}).get("healed")
        if state == "ok" and healed:
            return str(healed)
        time.sleep(0.02)
    raise AssertionError("the index never healed")


@pytest.mark.parametrize("damage", [overwrite_heads, delete_segments])
def test_a_damaged_index_is_marked_rebuilt_and_answers_again(
    api: httpx.Client, workspace: Workspace, damage: Callable[[Path], None]
) -> None:
    damage(workspace.state_dir / "qdrant")
    # The first use that meets the damage: a card still answers, a maintain says why.
    card = api.post("/v1/memory/card", json={"message": "my kayak hobby"})
    assert card.status_code == 200, card.text
    written = api.post(  # a write meets it too: the page is written, the index behind
        "/v1/memory/pages/write",
        json={"slug": "hobbies/new", "content": "---\ntitle: New\n---\nMy tango hobby.\n"},
    )
    assert written.status_code == 200, written.text
    behind = written.json().get("index")  # unless the card's damage was healed first
    assert behind is None or behind.startswith("behind: the index failed")
    why = wait_healed(api)
    assert why.startswith("the index failed") and str(workspace.root) not in why
    hits = api.post("/v1/memory/search", json={"query": "kayak hobby", "k": 1}).json()["hits"]
    assert hits[0]["slug"] == "hobbies/h0"
    tango = api.post("/v1/memory/search", json={"query": "tango hobby", "k": 1}).json()["hits"]
    assert tango[0]["slug"] == "hobbies/new"
    said = api.post(
        "/v1/memory/search", json={"query": "sloop moored Kirkwall", "kind": "episode"}
    ).json()["hits"]
    assert said and said[0]["session_id"] == "boat"  # the log's episodes are back too
    assert api.get("/v1/memory/problems", params={"index": "1"}).json()["problems"] == []


def test_an_error_of_the_store_names_no_path_of_this_machine() -> None:
    said = "Failed to flush /srv/memory/w/.substrate/qdrant/segments/x/tracker_journal.dat"
    assert scrub_paths(said) == "Failed to flush …/tracker_journal.dat"
    assert scrub_paths("no path here: 3/4 of it") == "no path here: 3/4 of it"


def test_the_first_read_waits_for_the_boot_maintenance(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("places/leith", "---\ntitle: Leith\n---\nI live in Leith, by the shore.\n")
    rt = runtime(build_settings(workspace.root))
    try:
        rt.start()
        hits = rt.memory.search("where do I live Leith", 3)  # no wait by the caller
        assert hits and hits[0]["slug"] == "places/leith"
        assert rt.health.state == "ok"
    finally:
        rt.close()


def test_a_damage_marks_the_index_degraded_until_the_rebuild_it_queues_has_run(
    workspace: Workspace, write_page: PageWriter
) -> None:
    from service.jobs import INDEX_LANE
    from substrate import IndexDamagedError

    write_page("places/leith", "---\ntitle: Leith\n---\nI live in Leith.\n")
    rt = runtime(build_settings(workspace.root))
    try:
        rt.memory.maintain()
        rt.index_damaged(IndexDamagedError("the index failed: a file cut short"))
        rt.index_damaged(IndexDamagedError("the index failed: again"))  # one rebuild
        assert rt.health.state == "degraded: the index failed: again"
        job = rt.queue.claim(lane=INDEX_LANE)
        assert job is not None and job.payload["rebuild"] is True
        assert rt.queue.claim(lane=INDEX_LANE) is None
        done = rt._maintain_job(job.payload)
        assert done["rebuilt"] and done["healed"] == "the index failed: again"
        assert rt.health.state == "ok"
    finally:
        rt.close()


def test_a_restart_on_a_current_index_does_not_make_reads_wait(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("places/leith", "---\ntitle: Leith\n---\nI live in Leith, by the shore.\n")
    first = runtime(build_settings(workspace.root))
    first.memory.maintain()
    first.close()
    again = runtime(build_settings(workspace.root))
    try:
        again.start()
        assert not again.health.reads_wait  # every page is embedded at its hash already
    finally:
        again.close()
    write_page("places/oban", "---\ntitle: Oban\n---\nA ferry to Mull.\n")
    third = runtime(build_settings(workspace.root))
    try:
        third.workers = []  # the boot maintenance is not run: reads would wait for it
        third.start()
        assert third.health.reads_wait
    finally:
        third.close()
