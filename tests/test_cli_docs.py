"""Every CLI command has help text and is documented in the README."""

from __future__ import annotations

from pathlib import Path

from service.cli import cli, command_paths

README = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")


def test_there_are_commands() -> None:
    assert len(command_paths(cli)) >= 7


def test_every_command_has_help() -> None:
    missing = [path for path, command in command_paths(cli) if not (command.help or "").strip()]
    assert missing == []


def test_every_command_appears_in_the_readme() -> None:
    missing = [path for path, _ in command_paths(cli) if f"`{path}" not in README]
    assert missing == []
