"""What every command shares: the group that turns errors into one line, the
common options, JSON output and the progress bar."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from substrate import MemoryServiceError


class Group(click.Group):
    """A `MemoryServiceError` anywhere below becomes one line on stderr and the
    error's exit code (2 for a scanner rejection, else 1)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemoryServiceError as exc:
            click.echo(f"error: {exc.message}", err=True)
            ctx.exit(exc.exit_code)


workspace_option = click.option(
    "--workspace",
    "workspace",
    type=click.Path(path_type=Path, file_okay=True, dir_okay=True),
    envvar="MEMORY_WORKSPACE",
    default=Path("workspace"),
    show_default=True,
    help="Workspace folder (env MEMORY_WORKSPACE).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
url_option = click.option(
    "--url",
    envvar="MEMORY_URL",
    metavar="URL",
    help="Use the memory service at URL (env MEMORY_URL). Default: the workspace's own "
    "service when `memory serve` runs, else the workspace directly.",
)


def print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def print_json_line(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False))


class ProgressBar:
    """A progress bar on stderr that appears only once there is work to show."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._bar: Any = None

    def __enter__(self) -> ProgressBar:
        return self

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
