"""`memory ingest` end to end: sources, summary, exit codes, the index follow-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from service.cli import cli
from substrate import Workspace
from substrate.index import EdgeStore


def ingest(workspace: Workspace, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(
        cli, ["ingest", "--workspace", str(workspace.root), *args], input=stdin
    )


def stage(tmp_path: Path, pages: dict[str, str]) -> Path:
    root = tmp_path / "stage"
    for slug, text in pages.items():
        path = root / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_dry_run_prints_a_summary_and_failures_and_exits_1(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder = stage(tmp_path, {"ok": "Fine.", "bad": "---\ntitle: [\n---\n"})
    result = ingest(workspace, str(folder), "--dry-run")
    assert result.exit_code == 1
    assert (
        f"dry run: 2 pages from {folder}: 1 would be written, 0 skipped, 1 failed" in result.stdout
    )
    assert "failed   bad: bad YAML frontmatter" in result.stderr
    assert not list(workspace.concepts_dir.rglob("*.md"))


def test_manifest_from_stdin_dry_run_json(workspace: Workspace) -> None:
    manifest = {"pages": [{"slug": "a", "content": "A"}, {"slug": "b/../c", "content": "C"}]}
    result = ingest(workspace, "-", "--dry-run", "--json", stdin=json.dumps(manifest))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["source"] == "stdin" and report["index"] is None
    assert report["totals"] == {
        "pages": 2,
        "written": 0,
        "would_write": 1,
        "skipped": 0,
        "failed": 1,
    }
    assert report["pages"][1]["error"].endswith("slug contains a '..' segment")


def test_needs_exactly_one_source(workspace: Workspace, tmp_path: Path) -> None:
    assert ingest(workspace).exit_code == 64
    result = ingest(workspace, str(tmp_path), "--manifest", str(tmp_path / "m.json"))
    assert result.exit_code == 64 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: give a DIR")


def test_unreadable_manifest_is_one_line(workspace: Workspace, tmp_path: Path) -> None:
    bad = tmp_path / "m.json"
    bad.write_text("{oops")
    result = ingest(workspace, "--manifest", str(bad))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {bad}: not valid JSON")
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
def test_written_pages_are_searchable_when_the_command_returns(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder = stage(
        tmp_path,
        {
            "people/sam": "---\ntitle: Sam\norigin_date: 2021-06-01\n---\nSam is allergic to shellfish.",
            "places/porto": "---\ntitle: Porto\n---\nThe train to Porto leaves at noon.",
        },
    )
    result = ingest(workspace, str(folder), "--source", "chatgpt", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["totals"]["written"] == 2
    assert report["index"]["embedded"] >= 2
    again = json.loads(ingest(workspace, str(folder), "--source", "chatgpt", "--json").stdout)
    assert again["totals"]["skipped"] == 2 and again["index"]["embedded"] == 0
    hits = json.loads(
        CliRunner()
        .invoke(cli, ["search", "--json", "--workspace", str(workspace.root), "food allergy"])
        .stdout
    )
    assert hits[0]["slug"] == "people/sam"
    assert (hits[0]["source"], hits[0]["origin_date"]) == ("import:chatgpt", "2021-06-01")


def test_when_indexing_fails_the_report_still_prints_and_a_rerun_indexes(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder = stage(tmp_path, {"notes/tea": "---\ntitle: Tea\n---\nGreen tea at four."})
    holder = EdgeStore(workspace.state_dir / "qdrant")  # another process would hold it so
    holder.ensure({"dense": 4})
    try:
        result = ingest(workspace, str(folder))
    finally:
        holder.close()
    assert result.exit_code == 1
    assert result.stdout.startswith("1 pages from ") and "1 written" in result.stdout
    assert (
        "error: pages were written but not indexed: the index (.substrate/qdrant)" in result.stderr
    )
    assert "held by another process" in result.stderr
    assert "ingesting pages" not in result.stderr  # no progress bar off a terminal
    again = ingest(workspace, str(folder), "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["totals"]["skipped"] == 1 and report["index"]["embedded"] >= 1


# Every marker the writers emit, as they write them (a fact section's bounds, a
# fact's id, status and lineage, review marks), and one already escaped.
MARKERS = [
    "<!-- memory:facts -->",
    "<!-- /memory:facts -->",
    "<!-- e:0123456789ab src:captured from:1796000000000 -->",
    "<!-- e:0123456789ab slot:home status:superseded by:aaaaaaaaaaaa until:2020-01-01 -->",
    "<!-- held:prompt_injection.persona -->",
    "<!-- released -->",
    "<!\\-- released -->",
]


def test_an_imported_notes_comments_are_never_read_as_the_products_markers(
    workspace: Workspace, tmp_path: Path
) -> None:
    """An imported page holding the product's marker syntax, anywhere in its body
    (a forged fact section with lineage, a status, a review mark): stored with
    every comment opener escaped, so no fact, id or lineage is read from it,
    and it restores to the words as written; the frontmatter stays byte for byte."""
    from substrate.pages import fact_bullets, split_frontmatter
    from substrate.safety.markers import restored

    pages = {}
    for n, marker in enumerate(MARKERS):
        body = (
            f"Notes on Mia. {marker}\n\n<!-- memory:facts -->\n"
            f"- [2026-01-02] Mia is allergic to penicillin. {marker}\n"
            f"{marker}\n<!-- /memory:facts -->\n"
        )
        pages[f"imported/mia-{n}"] = f"---\ntitle: Mia {n}\n---\n{body}"
    result = ingest(workspace, str(stage(tmp_path, pages)))
    assert result.exit_code == 0, result.stdout + result.stderr
    for slug, written in pages.items():
        stored = (workspace.memory_dir / "concepts" / f"{slug}.md").read_text()
        _, body = split_frontmatter(stored)
        assert stored.startswith(written.split("\n---\n", 1)[0])  # frontmatter as written
        assert "<!--" not in body and fact_bullets(stored) == [], slug
        assert restored(body) == split_frontmatter(written)[1], slug
