"""What every command shares: the group that turns errors into one line, the
common options, JSON output and the progress bar."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from click.exceptions import NoArgsIsHelpError

from substrate import MemoryServiceError
from substrate.errors import from_database_error, from_os_error
from substrate.safety import printable
from substrate.safety.safe_files import silence_stdout

USAGE_EXIT = 64  # sysexits' EX_USAGE: distinct from errors (1) and scanner rejections (2)


class Group(click.Group):
    """Every failure is one line on stderr and an exit code from one table: 1 an
    error (a `MemoryServiceError`, or the OS refusing a read or write), 2 a
    scanner rejection, 64 a usage error."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemoryServiceError as exc:
            click.echo(f"error: {exc.message}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:  # `memory … | head`: the reader has what it wanted
            silence_stdout()
            ctx.exit(0)
        except OSError as exc:  # a read-only workspace, a full disk
            click.echo(f"error: {printable(from_os_error(exc).message)}", err=True)
            ctx.exit(1)
        except sqlite3.Error as exc:  # the same, met by a database under .substrate/
            click.echo(f"error: {from_database_error(exc).message}", err=True)
            ctx.exit(1)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except NoArgsIsHelpError as exc:  # a bare group: its help, which is what to type
            click.echo(exc.format_message(), err=True)
            code = USAGE_EXIT
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "memory"
            typed = what_to_type(exc)
            click.echo(f"error: {exc.format_message()}{typed} (see `{where} --help`)", err=True)
            code = USAGE_EXIT
        except click.ClickException as exc:
            click.echo(f"error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except click.Abort:
            click.echo("error: aborted", err=True)
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code or 0)


def what_to_type(exc: click.UsageError) -> str:
    """The form a command takes, after a missing argument or option: a group's
    subcommands (`one of: show, add`), else its usage line."""
    ctx = exc.ctx
    if ctx is None or not exc.format_message().startswith("Missing"):
        return ""
    command = ctx.command
    if isinstance(command, click.Group):
        return f" One of: {', '.join(command.list_commands(ctx))}."
    pieces = " ".join(command.collect_usage_pieces(ctx))
    return f" Type: `{ctx.command_path} {pieces}`."


def one_or_batch(given: object | None, batch: bool, name: str, example: str) -> None:
    """A command taking one NAME or `--batch` (one per stdin line): a usage
    error that says what to type when neither or both are given."""
    if given is None and not batch:
        raise click.UsageError(
            f"give a {name} (e.g. {example}), or --batch to read one per line from stdin"
        )
    if given is not None and batch:
        raise click.UsageError(f"give a {name} or --batch, not both")


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
# For a group and each of its subcommands: given at either level (`memory sessions
# --workspace W show X` or `memory sessions show X --workspace W`), the nearer wins.
group_workspace_option = click.option(
    "--workspace",
    "workspace",
    type=click.Path(path_type=Path, file_okay=True, dir_okay=True),
    default=None,
    help="Workspace folder (env MEMORY_WORKSPACE, default ./workspace).",
)
group_json_option = click.option(
    "--json", "as_json", is_flag=True, default=None, help="Print JSON."
)


def workspace_of(ctx: click.Context, given: Path | None) -> Path:
    """The --workspace given to this command, else to a command above it, else
    MEMORY_WORKSPACE, else ./workspace."""
    here: click.Context | None = ctx
    while given is None and here is not None:
        given = here.params.get("workspace")
        here = here.parent
    return given or Path(os.environ.get("MEMORY_WORKSPACE") or "workspace")


def json_of(ctx: click.Context, given: bool | None) -> bool:
    """--json given to this command or to a command above it."""
    here: click.Context | None = ctx
    while not given and here is not None:
        given = here.params.get("as_json")
        here = here.parent
    return bool(given)


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
    """A progress bar on stderr, only when stderr is a terminal and there is work."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._bar: Any = None

    def __enter__(self) -> ProgressBar:
        return self

    def update(self, done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return  # a log or a pipe gets the summary line, not a bar redrawn per batch
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
