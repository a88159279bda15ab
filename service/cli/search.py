"""Index commands: `maintain` and `search`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, one_or_batch, print_json, url_option, workspace_option
from service.cli.batch import answer_each, batch_query
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for


@click.command()
@workspace_option
@url_option
@json_option
@click.argument("query", required=False)
@click.option(
    "--k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="Hits to return."
)
@click.option(
    "--capabilities", is_flag=True, help="Include synthetic capability entries (CLI commands)."
)
@click.option(
    "--kind",
    type=click.Choice(["page", "episode", "all"]),
    default="all",
    show_default=True,
    help="Pages, the conversation log's episodes, or both.",
)
@click.option(
    "--batch",
    is_flag=True,
    help='Read queries from stdin (text or JSON {"query", "k"}); one JSON line each.',
)
def search(
    workspace: Path,
    url: str | None,
    as_json: bool,
    query: str | None,
    k: int,
    capabilities: bool,
    kind: str,
    batch: bool,
) -> None:
    """Hybrid (dense + BM25) search over the concept pages and the conversation
    log's episodes (`--kind`); an episode hit names its session and time span."""
    one_or_batch(query, batch, "QUERY", '`memory search "plumber"`')
    target = target_for(workspace, url, cli_capabilities)
    if batch:

        def answer(line: str) -> dict[str, Any]:
            text, line_k = batch_query(line, k)
            return {"query": text, "hits": target.search(text, line_k, capabilities, kind)}

        if answer_each(sys.stdin, answer):
            sys.exit(1)
        return
    assert query is not None
    hits = target.search(query, k, capabilities, kind)
    if as_json:
        print_json(hits)
        return
    _print_hits(hits)


def _print_hits(hits: list[dict[str, Any]]) -> None:
    for rank, hit in enumerate(hits, 1):
        excerpt = str(hit["excerpt"]).replace("\n", " ")
        click.echo(
            f"{rank:2d}. {hit['slug']}  {hit['title']}  ({hit['score']:.4f})\n    {excerpt[:160]}"
        )
