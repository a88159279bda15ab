"""`memory maintain` and `memory search` end to end, with the real model."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import Workspace
from tests.conftest import PageWriter

pytestmark = pytest.mark.slow


def test_maintain_then_search_json(workspace: Workspace, write_page: PageWriter) -> None:
    write_page("people/sam", "---\ntitle: Sam\n---\nSam is allergic to shellfish.")
    write_page("places/porto", "---\ntitle: Porto\n---\nThe train to Porto leaves at noon.")
    runner = CliRunner()
    ws = str(workspace.root)
    first = runner.invoke(cli, ["maintain", "--json", "--workspace", ws], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["embedded"] >= 2  # two pages plus the CLI's capability entries
    again = json.loads(runner.invoke(cli, ["maintain", "--json", "--workspace", ws]).stdout)
    assert (again["embedded"], again["chunks"], again["deleted"]) == (0, 0, 0)
    hits = json.loads(
        runner.invoke(
            cli, ["search", "--json", "--workspace", ws, "food allergy", "--k", "1"]
        ).stdout
    )
    assert [h["slug"] for h in hits] == ["people/sam"]
    assert set(hits[0]) >= {"slug", "title", "score", "dense_rank", "sparse_rank", "excerpt"}

    batch = runner.invoke(
        cli,
        ["search", "--batch", "--workspace", ws],
        input='train departure\n{"query": "how do I search memory", "k": 2}\n',
    )
    lines = [json.loads(line) for line in batch.stdout.splitlines()]
    assert [len(line["hits"]) for line in lines] == [2, 2]
    assert lines[0]["hits"][0]["slug"] == "places/porto"
    assert all(h["kind"] == "page" for line in lines for h in line["hits"])


def test_search_needs_query_or_batch(workspace: Workspace) -> None:
    result = CliRunner().invoke(cli, ["search", "--workspace", str(workspace.root)])
    assert result.exit_code == 64
    assert result.output == (
        'error: give a QUERY (e.g. `memory search "plumber"`), or --batch to read one per '
        "line from stdin (see `memory search --help`)\n"
    )
    both = CliRunner().invoke(
        cli, ["search", "plumber", "--batch", "--workspace", str(workspace.root)]
    )
    assert both.exit_code == 64 and "give a QUERY or --batch, not both" in both.output


def test_batch_answers_every_line_in_order_with_errors_in_place(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "alpha")
    result = CliRunner().invoke(
        cli,
        ["search", "--batch", "--workspace", str(workspace.root)],
        input='{"k": 3}\nalpha\n\n{"query": "alpha", "k": true}\nalpha\n',
    )
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0] == {
        "line": 1,
        "error": {
            "code": "invalid_input",
            "message": '--batch: a JSON line needs a string "query"',
        },
    }
    assert [h["slug"] for h in lines[1]["hits"]] == ["a"]
    assert lines[2]["error"]["message"] == "query is empty: give some text to search for"
    assert lines[3]["error"]["message"].startswith("--batch: k must be an integer")
    assert lines[4]["query"] == "alpha"
