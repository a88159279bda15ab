"""The `memory` command line: each command parses its arguments, calls one library
function (locally or through the running service, `target`), and prints.

Every command takes `--workspace` (env `MEMORY_WORKSPACE`, default
`./workspace`). A `MemoryServiceError` anywhere below becomes one line on
stderr and the error's exit code (2 for a scanner rejection, else 1).
One module per command group; `base` holds what they share.
"""

from __future__ import annotations

import importlib

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
    "remember": ("memory", "remember_command"),
    "consolidate": ("memory", "consolidate"),
    "maintain": ("search", "maintain"),
    "search": ("search", "search"),
    "ingest": ("imports", "ingest"),
    "scan": ("scan", "scan"),
    "card": ("card", "card"),
    "sessions": ("profile", "sessions"),
    "promotions": ("profile", "promotions"),
    "forget": ("profile", "forget"),
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
    """Memory service for AI assistants: concept pages, buffer, retrieval."""


def main() -> None:
    cli(prog_name="memory")


__all__ = ["cli", "cli_capabilities", "command_paths", "main"]
