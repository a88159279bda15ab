"""`memory consolidate` and `memory remember --at` through the CLI, on the real models."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import Workspace
from tests.conftest import PageWriter


def run(workspace: Workspace, *args: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(cli, [*args, "--workspace", str(workspace.root)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args else {"out": result.stdout}


def test_consolidate_json_has_the_documented_fields_and_pages_are_searchable(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("people/sam", "---\ntitle: Sam\n---\n# Sam\n")
    ids = [
        CliRunner()
        .invoke(cli, ["remember", "--workspace", str(workspace.root), text, "--at", at])
        .stdout.strip()
        for text, at in (
            ("Sam started rock climbing on Tuesdays", "2023-05-08T13:56"),
            ("thanks", "2023-05-08T14:00"),
        )
    ]
    archive = workspace.archive_dir / "2023-05-08.md"
    assert "Sam started rock climbing" in archive.read_text()
    dry = run(workspace, "consolidate", "--dry-run", "--json")
    assert dry["dry_run"] and dry["filed"] == 1
    outcome = run(workspace, "consolidate", "--json")
    assert {
        "entries_seen",
        "filed",
        "merged",
        "skipped",
        "pages_created",
        "pages_updated",
        "dangling_links",
        "entries",
    } <= set(outcome)
    assert (outcome["entries_seen"], outcome["filed"], outcome["skipped"]) == (2, 1, 1)
    first, second = outcome["entries"]
    assert {"id", "status", "page", "decided_by", "reason"} <= set(first)
    assert (first["id"], first["status"], first["page"], first["decided_by"]) == (
        ids[0],
        "filed",
        "people/sam",
        "entity",
    )
    assert (second["status"], second["page"], second["decided_by"]) == ("skipped", None, None)
    hits = run(workspace, "search", "--json", "rock climbing")
    assert hits[0]["slug"] == "people/sam" and "rock climbing" in hits[0]["excerpt"]  # type: ignore[index]
    explained = run(workspace, "consolidate", "--explain", ids[0], "--json")
    assert explained["pages"] == ["people/sam"] and explained["state"] == "filed"


def test_a_bad_at_is_one_line(workspace: Workspace) -> None:
    result = CliRunner().invoke(
        cli, ["remember", "--workspace", str(workspace.root), "fact", "--at", "yesterday"]
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "error: at: 'yesterday' is not an ISO 8601 date or time (e.g. 2023-05-08T13:56)\n"
    )


@pytest.mark.parametrize("args", [["--explain", "000000000000"]])
def test_explaining_an_unknown_entry_is_one_line(workspace: Workspace, args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["consolidate", "--workspace", str(workspace.root), *args])
    assert result.exit_code == 1
    assert "no buffer entry, filed fact or recorded decision" in result.stderr


def remember_at(workspace: Workspace, text: str, at: str) -> str:
    result = CliRunner().invoke(
        cli, ["remember", "--workspace", str(workspace.root), text, "--at", at]
    )
    assert result.exit_code == 0, result.output
    return str(result.stdout.strip())


def test_facts_lists_a_pages_facts_with_their_status_and_explain_tells_the_lifecycle(
    workspace: Workspace,
) -> None:
    leeds = remember_at(workspace, "I live in Leeds.", "2024-03-01T10:00")
    moved = remember_at(workspace, "I moved to Manchester.", "2024-06-02T10:00")
    printed = run(workspace, "consolidate")["out"]
    assert f"{moved} -> me/home [topic]: about you: home (slot home); supersedes {leeds}" in printed
    current = run(workspace, "facts", "me/home", "--json")
    assert current == {
        "slug": "me/home",
        "facts": [
            {
                "id": moved,
                "text": "I moved to Manchester.",
                "date": "2024-06-02",
                "slot": "home",
                "status": "current",
                "superseded_by": None,
                "until": None,
            }
        ],
    }
    every = run(workspace, "facts", "me/home", "--all", "--json")
    assert [(f["id"], f["status"], f["superseded_by"]) for f in every["facts"]] == [
        (moved, "current", None),
        (leeds, "superseded", moved),
    ]
    printed = run(workspace, "facts", "me/home", "--all")["out"]
    assert f"superseded by {moved} on 2024-06-02" in printed
    told = run(workspace, "consolidate", "--explain", leeds)["out"]
    assert f"now: superseded by {moved} on 2024-06-02 on me/home [home]" in told
    told = run(workspace, "consolidate", "--explain", moved)["out"]
    assert (
        f"slot home, family home; candidates: {leeds}; decision: supersedes {leeds} "
        "(home: a newer value)"
    ) in told


def test_facts_of_an_unknown_page_is_one_line(workspace: Workspace) -> None:
    result = CliRunner().invoke(cli, ["facts", "--workspace", str(workspace.root), "me/nowhere"])
    assert result.exit_code == 1
    assert result.stderr == "error: no concept page 'me/nowhere'\n"
