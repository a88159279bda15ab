"""`memory remember`: save a fact (in this process or through the running service)."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for


@click.command("remember")
@workspace_option
@url_option
@click.argument("text")
@click.option(
    "--hint", "hints", multiple=True, metavar="SLUG", help="Page the fact belongs to (repeatable)."
)
def remember_command(workspace: Path, url: str | None, text: str, hints: tuple[str, ...]) -> None:
    """Save a fact to the intake buffer and today's archive; prints its id."""
    click.echo(target_for(workspace, url, cli_capabilities).remember(text, list(hints)))
