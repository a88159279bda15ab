"""`memory facts SLUG`: a page's facts and whether each is still true."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.target import local_memory


@click.command("facts")
@workspace_option
@json_option
@click.argument("slug")
@click.option("--all", "every", is_flag=True, help="Also the facts no longer true.")
def facts(workspace: Path, as_json: bool, slug: str, every: bool) -> None:
    """List a page's current facts (--all: with those superseded or retracted)."""
    found = local_memory(workspace).facts(slug, every)
    if as_json:
        print_json(found)
        return
    for fact in found["facts"]:
        slot = f" [{fact['slot']}]" if fact["slot"] else ""
        click.echo(f"{fact['id']}  {fact['date']}  {fact['status']}{slot}")
        click.echo(f"    {' '.join(fact['text'].split())[:200]}")
        if fact["status"] != "current":
            by = f" by {fact['superseded_by']}" if fact["superseded_by"] else ""
            click.echo(f"    {fact['status']}{by} on {fact['until'] or 'an unknown day'}")
    if not found["facts"]:
        click.echo(f"{slug} holds no {'facts' if every else 'current facts'}")
