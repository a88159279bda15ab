"""`memory forget`: a promotion, a curation candidate or a profile line, gone from
the profile (through `Memory.forget`, as every surface does)."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.target import local_memory


@click.command("forget")
@workspace_option
@json_option
@click.argument("what")
def forget(workspace: Path, as_json: bool, what: str) -> None:
    """Forget WHAT: a promotion id (p-...: its line leaves the profile, and earlier
    evidence never promotes it again), a curation candidate id (c-...: its line
    leaves the profile), or the text of a profile line."""
    done = local_memory(workspace).forget(what)
    if as_json:
        print_json(done)
    else:
        click.echo(f"forgot {done['forgot']}: {done['content']}")
