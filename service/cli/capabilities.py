"""Every CLI command as a searchable capability entry (kind=capability, never fresh)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from substrate import Capability


def command_paths(group: click.Group, prefix: str = "memory") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            out.extend(command_paths(command, path))
        else:
            out.append((path, command))
    return out


def cli_capabilities() -> list[Capability]:
    from service.cli import cli  # the assembled group; this module is imported by its commands
    from substrate import Capability  # the index room: loaded only when something is indexed

    return [
        Capability(f"capability/cli/{path.replace(' ', '-')}", path, command.help or "")
        for path, command in command_paths(cli)
    ]
