"""`memory remember`: save a fact to the intake buffer, in this process or through
the running service."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for
from substrate.intake import parse_at


@click.command("remember")
@workspace_option
@url_option
@click.argument("text")
@click.option(
    "--hint", "hints", multiple=True, metavar="SLUG", help="Page the fact belongs to (repeatable)."
)
@click.option(
    "--at", "at", metavar="ISO8601", help="Stamp the fact with this time (backdating, migrations)."
)
def remember_command(
    workspace: Path, url: str | None, text: str, hints: tuple[str, ...], at: str | None
) -> None:
    """Save a fact to the intake buffer and its day's archive; prints its id. A fact
    the scanner reads as an attack on a judgement alone is kept, held for review
    (said on stderr), until `memory release ID`."""
    moment = parse_at(at) if at else None
    entry = target_for(workspace, url, cli_capabilities).remember(text, hints, moment)
    click.echo(entry.id)
    if entry.held is not None:
        why = f" ({entry.why})" if entry.why else ""
        click.echo(
            f"held for review: scanner rule {entry.held!r}{why}; it is kept but not filed "
            f"until `memory release {entry.id}`",
            err=True,
        )
