"""The `memory` command line: each command parses its arguments, calls one library
function (locally or through the running service, `target`), and prints.

Every command takes `--workspace` (env `MEMORY_WORKSPACE`, default
`./workspace`). A `MemoryServiceError` anywhere below becomes one line on
stderr and the error's exit code (2 for a scanner rejection, else 1).
One module per command group; `base` holds what they share.
"""

from __future__ import annotations

import click

from service.cli import (
    card,
    curation,
    doctor,
    imports,
    mcp,
    memory,
    profile,
    scan,
    search,
    serve,
    workspace,
)
from service.cli.base import Group
from service.cli.capabilities import cli_capabilities, command_paths


@click.group(cls=Group, name="memory")
@click.version_option(package_name="memory-substrate")
def cli() -> None:
    """Memory service for AI assistants: concept pages, buffer, retrieval."""


for command in (
    workspace.init,
    workspace.validate,
    workspace.pages,
    workspace.buffer,
    workspace.stats,
    workspace.config,
    memory.remember_command,
    memory.consolidate,
    search.maintain,
    search.search,
    imports.ingest,
    scan.scan,
    card.card,
    profile.sessions,
    profile.promotions,
    profile.forget,
    curation.review,
    curation.recent_command,
    curation.apply_command,
    curation.reject_command,
    curation.undo_command,
    curation.populate,
    curation.finalization,
    curation.status,
    curation.mode,
    curation.compact_command,
    curation.edit,
    serve.serve,
    mcp.mcp,
    doctor.doctor,
):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="memory")


__all__ = ["cli", "cli_capabilities", "command_paths", "main"]
