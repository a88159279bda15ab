"""`memory profile ...`: the profile files' lines (trusted memory beside the
card) listed, and a person's own line added through the scanner; a line is
forgotten with `memory forget TEXT`, like every fact."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import (
    group_json_option,
    group_workspace_option,
    json_of,
    print_json,
    workspace_of,
)
from service.cli.target import local_memory, served_client
from substrate.curation import WRITABLE
from substrate.profile import profile_json, read_profile


@click.group("profile")
@group_workspace_option
@group_json_option
def profile(workspace: Path | None, as_json: bool | None) -> None:
    """List the profile files' lines, or add one (scanned like remember)."""


@profile.command("show")
@group_workspace_option
@group_json_option
def show(workspace: Path | None, as_json: bool | None) -> None:
    """Each profile file: its size against its budget, then its lines."""
    ctx = click.get_current_context()
    files = read_profile(local_memory(workspace_of(ctx, workspace)).settings)
    if json_of(ctx, as_json):
        print_json([profile_json(f) for f in files.values()])
        return
    for f in files.values():
        note = " (protected: never searched)" if f.protected else ""
        click.echo(f"{f.name}: {len(f.text)} / {f.budget} characters{note}")
        for line in profile_json(f)["lines"]:
            click.echo(f"  - {line}")
    click.echo("`memory profile add TEXT` adds a line; `memory forget TEXT` takes one out")


@profile.command("add")
@group_workspace_option
@group_json_option
@click.argument("text")
@click.option(
    "--file",
    "name",
    type=click.Choice(WRITABLE),
    default="USER.md",
    show_default=True,
    help="USER.md for preferences, MEMORY.md for project facts.",
)
def add(workspace: Path | None, as_json: bool | None, text: str, name: str) -> None:
    """Add TEXT as a line of a profile file: budget-checked and scanned (a text
    the scanner would hold is refused: profile lines are trusted on every card)."""
    ctx = click.get_current_context()
    where = workspace_of(ctx, workspace)
    client = served_client(where)
    if client is not None:  # the service owns the workspace: the line goes through it
        done = client.post("/v1/profile/lines", {"text": text, "file": name})
    else:
        done = local_memory(where).add_profile_line(text, name)
    if json_of(ctx, as_json):
        print_json(done)
        return
    click.echo(f"added to {done['file']}: {done['line']} ({done['chars']} / {done['budget']})")
