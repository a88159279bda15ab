"""`memory held` and `memory release`: the facts the scanner held for review
(a person's own words it read as an attack on a judgement), and letting them
through to the next consolidation."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.target import local_memory, served_client


@click.command("held")
@workspace_option
@json_option
def held(workspace: Path, as_json: bool) -> None:
    """List the facts held for review: id, when, the rule that holds it and why."""
    rows = local_memory(workspace).held()
    if as_json:
        print_json(rows)
        return
    if not rows:
        click.echo("nothing is held for review")
        return
    for row in rows:
        click.echo(f"{row['id']}  {row['at']}  {row['rule']}: {row['why']}")
        click.echo(f"    {row['text'][:200]}")
    click.echo(f"{len(rows)} held; `memory release ID` files one at the next consolidation")


@click.command("release")
@workspace_option
@json_option
@click.argument("ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Release every held fact.")
def release(workspace: Path, as_json: bool, ids: tuple[str, ...], every: bool) -> None:
    """Release held facts (IDS, or --all): the next consolidation files them."""
    if ids and every:
        raise click.UsageError("give entry ids or --all, not both")
    if not ids and not every:
        raise click.UsageError("give the held entries' ids (`memory held` lists them), or --all")
    client = served_client(workspace)
    if client is not None:  # the service owns the workspace: released through it
        rows = client.post("/v1/memory/release", {"ids": list(ids), "all": every})["released"]
    else:
        rows = local_memory(workspace).release(ids, every)
    if as_json:
        print_json(rows)
        return
    for row in rows:
        click.echo(f"released {row['id']}: {row['text'][:120]}")
    if not rows:
        click.echo("nothing is held for review")
