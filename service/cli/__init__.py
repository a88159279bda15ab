"""The `memory` command line: each command parses its arguments, calls one library
function (locally or through the running service, `target`), and prints.

Every command takes `--workspace` (env `MEMORY_WORKSPACE`, default
`./workspace`), before or after its name (`hoisted`). A `MemoryServiceError`
anywhere below becomes one line on stderr and the error's exit code (2 for a
scanner rejection, else 1).
One module per command group; `base` holds what they share.
"""

from __future__ import annotations

import importlib
import sys

import click

from service.cli.base import Group
from service.cli.capabilities import cli_capabilities, command_paths

# name -> (module, attribute): each command's module is imported only when that
# command runs (or help lists them all), so `memory doctor` does not pay for the
# MCP SDK, the model client and the web stack.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("workspace", "init"),
    "validate": ("workspace", "validate"),
    "pages": ("workspace", "pages"),
    "buffer": ("workspace", "buffer"),
    "stats": ("workspace", "stats"),
    "config": ("workspace", "config"),
    "workspace": ("workspace", "workspace_group"),
    "remember": ("remember", "remember_command"),
    "consolidate": ("consolidate", "consolidate"),
    "facts": ("facts", "facts"),
    "maintain": ("maintain", "maintain"),
    "search": ("search", "search"),
    "ingest": ("ingest", "ingest"),
    "scan": ("scan", "scan"),
    "card": ("card", "card"),
    "sessions": ("sessions", "sessions"),
    "promotions": ("promotions", "promotions"),
    "profile": ("profile", "profile"),
    "forget": ("forget", "forget"),
    "correct": ("forget", "correct"),
    "history": ("forget", "history"),
    "lineage": ("purge", "lineage"),
    "purge": ("purge", "purge"),
    "page": ("page", "page"),
    "import": ("chat_import", "import_command"),
    "held": ("held", "held"),
    "release": ("held", "release"),
    "review": ("curation", "review"),
    "recent": ("curation", "recent_command"),
    "apply": ("curation", "apply_command"),
    "reject": ("curation", "reject_command"),
    "undo": ("curation", "undo_command"),
    "populate": ("curation", "populate"),
    "finalization": ("curation", "finalization"),
    "status": ("curation", "status"),
    "mode": ("curation", "mode"),
    "compact": ("curation", "compact_command"),
    "edit": ("curation", "edit"),
    "serve": ("serve", "serve"),
    "mcp": ("mcp", "mcp"),
    "doctor": ("doctor", "doctor"),
}


class LazyGroup(Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attr = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f"service.cli.{module}"), attr)
        assert isinstance(command, click.Command) and command.name == cmd_name, cmd_name
        return command


@click.group(cls=LazyGroup, name="memory")
@click.version_option(package_name="memory-substrate")
def cli() -> None:
    """Memory service for AI assistants: concept pages, buffer, retrieval.

    `--workspace DIR` and `--json` may also come before the command
    (`memory --workspace DIR stats`)."""


GLOBAL_FLAGS = ("--json",)
GLOBAL_VALUES = ("--workspace",)


def hoisted(args: list[str]) -> list[str]:
    """`memory --workspace W --json CMD ...` as `memory CMD ... --workspace W --json`:
    the options a person puts first are handed to the command they named (its
    own options, so a command without `--json` still says it has none)."""
    moved: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in GLOBAL_FLAGS or any(arg.startswith(f"{v}=") for v in GLOBAL_VALUES):
            moved.append(arg)
            i += 1
        elif arg in GLOBAL_VALUES and i + 1 < len(args):
            moved += args[i : i + 2]
            i += 2
        else:
            break
    rest = args[i:]
    if not moved or not rest:
        return args
    if "--" in rest:  # after `--` everything is an argument: the options go before it
        cut = rest.index("--")
        return [*rest[:cut], *moved, *rest[cut:]]
    return [*rest, *moved]


def main() -> None:
    cli(args=hoisted(sys.argv[1:]), prog_name="memory")


__all__ = ["cli", "cli_capabilities", "command_paths", "main"]
