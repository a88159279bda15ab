"""`memory maintain`: bring the search index up to the pages, in this process or
through the running service."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for


@click.command()
@workspace_option
@url_option
@json_option
@click.option(
    "--rebuild", is_flag=True, help="Drop the derived index and rebuild it from the pages."
)
def maintain(workspace: Path, url: str | None, as_json: bool, rebuild: bool) -> None:
    """Bring the search index up to date: embed changed pages, drop deleted ones."""
    report = target_for(workspace, url, cli_capabilities).maintain(rebuild)
    if as_json:
        print_json(report.as_json())
        return
    click.echo(report.line())
