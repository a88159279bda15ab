"""`memory workspace token`: the token that opens one workspace of a
multi-workspace service (`memory serve --workspaces DIR`)."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import group_workspace_option, workspace_of
from service.tenants.tokens import workspace_token
from substrate import open_workspace


@click.group(name="workspace")
def workspace_group() -> None:
    """A workspace's own settings as a multi-workspace service serves it."""


@workspace_group.command(name="token")
@group_workspace_option
@click.option("--rotate", is_flag=True, help="Replace the token: the old one stops working.")
@click.pass_context
def token(ctx: click.Context, workspace: Path | None, rotate: bool) -> None:
    """Print the workspace's token, making one when it has none (or a new one
    with --rotate). Clients send it as `Authorization: Bearer <token>` to
    /w/{workspace}/…; a running service reads it from the workspace, so a
    rotation takes effect on the next request."""
    ws = open_workspace(workspace_of(ctx, workspace))
    value, made = workspace_token(ws, rotate=rotate)
    click.echo(value)
    if made:
        click.echo(f"{'rotated' if rotate else 'made'} the token of {ws.root}", err=True)
