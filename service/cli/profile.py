"""`memory profile ...`: the profile files' lines (trusted memory beside the
card) listed, and a person's own line added through the scanner; a line is
forgotten with `memory forget TEXT`, like every fact."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
    client = served_client(where, as_person=True)  # the person, at their terminal
    if client is not None:  # the service owns the workspace: the line goes through it
        done = client.post("/v1/profile/lines", {"text": text, "file": name})
    else:
        done = local_memory(where).add_profile_line(text, name, via="cli")
    if "pending" in done and _confirmed_here(done):
        done = _confirm(where, str(done["pending"]))
    if json_of(ctx, as_json):
        print_json(done)
        return
    _said(done)


@profile.command("pending")
@group_workspace_option
@group_json_option
def pending(workspace: Path | None, as_json: bool | None) -> None:
    """Lines parked until you confirm them: each asks the assistant to act
    (send, share, run, install, push, delete, or act without asking)."""
    ctx = click.get_current_context()
    where = workspace_of(ctx, workspace)
    client = served_client(where)
    rows = (
        client.get("/v1/profile/pending")["pending"]
        if client is not None
        else local_memory(where).pending_lines()
    )
    if json_of(ctx, as_json):
        print_json({"pending": rows})
        return
    for row in rows:
        click.echo(f"{row['id']}  {row['file']}  (via {row['via']}) {row['text']}")
        click.echo(f"    {row['reason']}")
    click.echo(f"{len(rows)} waiting; `memory profile confirm ID` writes one")


@profile.command("confirm")
@group_workspace_option
@group_json_option
@click.argument("line_id")
@click.option("--yes", is_flag=True, help="Confirm without asking (you are the person).")
def confirm(workspace: Path | None, as_json: bool | None, line_id: str, yes: bool) -> None:
    """Write a parked line to its profile file. On a terminal it asks first;
    elsewhere give --yes (a trusted line is on every card)."""
    ctx = click.get_current_context()
    where = workspace_of(ctx, workspace)
    if not yes:
        if not _at_a_terminal():
            raise click.UsageError("confirm at a terminal, or give --yes")
        if not click.confirm(f"Write {line_id} to your trusted profile?", default=False):
            click.echo("left waiting")
            return
    done = _confirm(where, line_id)
    if json_of(ctx, as_json):
        print_json(done)
        return
    _said(done)


def _at_a_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _confirmed_here(done: dict[str, Any]) -> bool:
    """A person at a terminal is asked at once; anywhere else the line waits."""
    if not _at_a_terminal():
        return False
    click.echo(f"{done['line']}\n  {done['reason']}")
    return click.confirm("Write it to your trusted profile?", default=False)


def _confirm(where: Path, line_id: str) -> dict[str, Any]:
    client = served_client(where, as_person=True)  # a terminal holds the person key
    if client is not None:
        done: dict[str, Any] = client.post(f"/v1/profile/pending/{line_id}/confirm", {})
        return done
    return local_memory(where).confirm_line(line_id)


def _said(done: dict[str, Any]) -> None:
    if "pending" in done:
        click.echo(f"waiting for your confirmation ({done['pending']}): {done['reason']}")
        click.echo("`memory profile confirm ID` writes it; `memory profile pending` lists them")
        return
    click.echo(f"added to {done['file']}: {done['line']} ({done['chars']} / {done['budget']})")
