"""`memory doctor`: every planted defect is found with the page or file it concerns,
`--fix` repairs every derived one without touching `memory/`, and a clean
workspace exits 0."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.jobs import JobQueue
from service.runtime import MAINTAIN
from substrate import Workspace
from substrate.index.index_state import read_index_state, state_path, write_index_state
from tests.conftest import PageWriter

pytestmark = pytest.mark.slow  # the real models index the pages

PAGES = {
    "people/sam": "---\ntitle: Sam\n---\nSam is allergic to shellfish.",
    "places/lisbon": "---\ntitle: Lisbon\n---\nThe family lives in Lisbon.",
    "notes/tea": "---\ntitle: Tea\n---\nAlice prefers green tea.",
    "notes/gone": "---\ntitle: Gone\n---\nThis page will be deleted.",
}


def doctor(workspace: Workspace, *flags: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["doctor", "--workspace", str(workspace.root), "--json", *flags]
    )
    assert result.stdout, (result.stderr, result.exception)
    return result.exit_code, json.loads(result.stdout)


def memory_digest(workspace: Workspace) -> str:
    digest = hashlib.sha256()
    for path in sorted(workspace.memory_dir.rglob("*")):
        if path.is_file():
            digest.update(path.as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def indexed(workspace: Workspace, write_page: PageWriter) -> Workspace:
    text = workspace.config_path.read_text()
    workspace.config_path.write_text(
        text.replace("[memory.substrate]\n", "[memory.substrate]\nscanner_detector = false\n")
    )
    for slug, text in PAGES.items():
        write_page(slug, text)
    assert CliRunner().invoke(cli, ["maintain", "--workspace", str(workspace.root)]).exit_code == 0
    return workspace


def test_a_clean_workspace_has_no_problems(indexed: Workspace) -> None:
    code, report = doctor(indexed)
    assert (code, report["problems"], report["fixed"]) == (0, [], [])
    plain = CliRunner().invoke(cli, ["doctor", "--workspace", str(indexed.root)])
    assert plain.exit_code == 0 and plain.stdout == "no problems\n"


def test_every_planted_defect_is_found_and_fix_repairs_every_derived_one(
    indexed: Workspace, write_page: PageWriter
) -> None:
    state = indexed.state_dir
    write_page("people/sam", "---\ntitle: Sam\n---\nSam is allergic to shellfish and nuts.")
    write_page("notes/new", "---\ntitle: New\n---\nA page added by hand.")
    (indexed.concepts_dir / "notes/gone.md").unlink()
    doc = read_index_state(state_path(state))
    doc["pages"]["places/lisbon"][1] = 7  # the store holds fewer points than the state says
    doc["sparse_avgdl"] = 500.0  # far from any avgdl the corpus (planted stats too) gives
    write_index_state(state_path(state), doc)
    stats = json.loads((state / "bm25-stats.json").read_text())
    (state / "bm25-stats.json").write_text(json.dumps({**stats, "documents": 999}))
    (state / "page-index.json").write_text("{not json")
    (state / "edges.jsonl").write_text("garbage\n")
    (state / "conversations").mkdir(exist_ok=True)
    (state / "conversations" / "deadbeef.json").write_text("{torn")
    queue = JobQueue(state / "jobs.sqlite")
    queue.enqueue(MAINTAIN, {"reason": "test"})
    assert queue.claim(lease_s=-1) is not None  # a worker took it and died
    (state / "service.json").write_text(json.dumps({"url": "http://x", "pid": dead_pid()}))
    before = memory_digest(indexed)

    code, report = doctor(indexed)
    assert code == 1
    found = {(p["kind"], p["message"]) for p in report["problems"]}
    kinds = {kind for kind, _ in found}
    assert kinds == {
        "page_index_cache",
        "page_hash",
        "page_not_indexed",
        "page_gone",
        "store_points",
        "bm25_stats",
        "sparse_avgdl",
        "learned_edges",
        "conversation_file",
        "job_lease",
        "service_file",
    }
    assert ("page_hash", "page people/sam changed since it was indexed") in found
    assert ("page_not_indexed", "page notes/new is not in the index") in found
    assert ("page_gone", "page notes/gone is gone but still indexed") in found
    messages = " ".join(message for _, message in found)
    for name in ("page-index.json", "edges.jsonl", "deadbeef.json", "jobs.sqlite", "service.json"):
        assert name in messages
    assert all(p["fix"] for p in report["problems"])

    code, report = doctor(indexed, "--fix")
    assert report["problems"] == [] and code == 0
    assert {p["kind"] for p in report["fixed"]} == kinds
    assert memory_digest(indexed) == before  # derived state only
    assert doctor(indexed) == (0, {"problems": [], "fixed": [], "notes": []})
    search = CliRunner().invoke(cli, ["search", "--workspace", str(indexed.root), "--json", "nuts"])
    assert json.loads(search.stdout)[0]["slug"] == "people/sam"  # re-indexed


def test_orphan_points_and_another_models_vectors_mean_a_rebuild(indexed: Workspace) -> None:
    path = state_path(indexed.state_dir)
    doc = read_index_state(path)
    del doc["pages"]["notes/tea"]  # its points stay in the store
    doc["identity"] = "fastembed:some-other-model;dim=384"
    write_index_state(path, doc)
    code, report = doctor(indexed)
    kinds = {p["kind"] for p in report["problems"]}
    assert code == 1 and {"orphan_points", "embedder_identity", "page_not_indexed"} <= kinds
    orphan = next(p for p in report["problems"] if p["kind"] == "orphan_points")
    assert "notes/tea" in orphan["message"]
    assert doctor(indexed, "--fix")[0] == 0
    assert doctor(indexed)[0] == 0
