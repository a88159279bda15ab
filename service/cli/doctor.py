"""`memory doctor [--fix] [--json]`: files and index agree, or each problem and its repair."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.capabilities import cli_capabilities
from service.doctor import diagnose, repair
from service.settings_loader import build_settings


@click.command()
@workspace_option
@json_option
@click.option("--fix", is_flag=True, help="Repair what is derived (never touches memory/).")
def doctor(workspace: Path, as_json: bool, fix: bool) -> None:
    """Check that the pages and every derived file agree: index state, store points,
    embedders, BM25 statistics, page-index cache, learned edges, conversation files,
    job leases, the service file. Exit 0 when no problem is left, 1 otherwise."""
    settings = build_settings(workspace)
    checkup = diagnose(settings)
    if fix and checkup.problems:
        from service.cli.target import target_for  # the model stack: only to repair
        from service.memory import Memory

        def maintain(rebuild: bool) -> object:
            """Through the service when one runs; else here, releasing the embedded
            store before the checks run again."""
            target = target_for(workspace, None, cli_capabilities)
            report = target.maintain(rebuild)
            if isinstance(target, Memory):
                target.close()
            return report

        checkup = repair(settings, checkup, maintain)
    if as_json:
        print_json(checkup.as_json())
    else:
        for p in checkup.fixed:
            click.echo(f"fixed {p.kind}: {p.message}")
        for p in checkup.problems:
            click.echo(f"{p.kind}: {p.message} (fix: {p.fix})")
        for note in checkup.notes:
            click.echo(f"note: {note}")
        if not checkup.problems:
            click.echo("no problems")
    if checkup.problems:
        sys.exit(1)
