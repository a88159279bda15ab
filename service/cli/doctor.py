"""`memory doctor [--fix] [--json]`: files and index agree, or each problem and its repair."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import served_client
from service.doctor import diagnose, repair
from service.settings_loader import build_settings


@click.command()
@workspace_option
@json_option
@click.option("--fix", is_flag=True, help="Repair what is derived (never touches memory/).")
def doctor(workspace: Path, as_json: bool, fix: bool) -> None:
    """Check that the pages and every derived file agree: index state, store points,
    embedders, BM25 statistics, page-index cache, learned edges, conversation files,
    job leases, the service file. While a service owns the workspace, it runs
    the checks against the index it holds. Exit 0 when no problem is left, 1
    otherwise."""
    settings = build_settings(workspace)
    service = None if fix else served_client(workspace)
    if service is not None:  # the service owns the index: it runs every check
        _report(service.get("/v1/memory/problems", {"index": "1"}), as_json)
        return
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
    _report(checkup.as_json(), as_json)


def _report(checkup: dict[str, Any], as_json: bool) -> None:
    """The checkup printed (or its JSON); exit 1 while a problem is left."""
    if as_json:
        print_json(checkup)
    else:
        for p in checkup["fixed"]:
            click.echo(f"fixed {p['kind']}: {p['message']}")
        for p in checkup["problems"]:
            click.echo(f"{p['kind']}: {p['message']} (fix: {p['fix']})")
        for note in checkup["notes"]:
            click.echo(f"note: {note}")
        if not checkup["problems"]:
            click.echo("no problems")
    if checkup["problems"]:
        sys.exit(1)
