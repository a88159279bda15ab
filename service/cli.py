"""The `memory` command line: parse arguments, call one library function, print.

Every command takes `--workspace` (env `MEMORY_WORKSPACE`, default
`./workspace`). A `MemoryServiceError` anywhere below becomes one line on
stderr and the error's exit code (2 for a scanner rejection, else 1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from service.settings_loader import build_settings
from substrate import (
    MemoryServiceError,
    Settings,
    collect_stats,
    entry_json,
    init_workspace,
    iso_utc,
    load_page_index,
    migrate_config,
    open_workspace,
    read_buffer,
    remember,
)


class _Group(click.Group):
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


def _print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@click.group(cls=_Group)
@click.version_option(package_name="memory-substrate")
def cli() -> None:
    """Memory service for AI assistants: concept pages, buffer, retrieval."""


@cli.command()
@workspace_option
def init(workspace: Path) -> None:
    """Create a workspace (config.toml, memory/, .substrate/); keeps existing files."""
    created = init_workspace(workspace)
    open_workspace(workspace)
    for path in created:
        click.echo(f"created {path}")
    click.echo(f"workspace ready at {workspace}" + ("" if created else " (nothing to create)"))


@cli.command()
@workspace_option
@json_option
def validate(workspace: Path, as_json: bool) -> None:
    """Report pages that fail to parse and links to missing pages; exit 1 if any."""
    index = load_page_index(build_settings(workspace).workspace)
    failures = [{"slug": f.slug, "path": f.path, "error": f.error} for f in index.parse_failures]
    dangling = [{"from": d.source, "to": d.target, "via": d.via} for d in index.dangling_links]
    if as_json:
        _print_json({"pages": len(index), "parse_failures": failures, "dangling_links": dangling})
    else:
        for f in failures:
            click.echo(f"parse failure  {f['path']}: {f['error']}")
        for d in dangling:
            click.echo(f"dangling link  {d['from']} -> {d['to']} (via {d['via']})")
        click.echo(
            f"{len(index)} pages, {len(failures)} parse failures, {len(dangling)} dangling links"
        )
    if failures or dangling:
        sys.exit(1)


@cli.command()
@workspace_option
@json_option
def pages(workspace: Path, as_json: bool) -> None:
    """List the PageIndex: one entry per concept page."""
    index = load_page_index(build_settings(workspace).workspace)
    rows = [entry_json(e) for e in index.entries.values()]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        click.echo(f"{row['slug']}\t{row['title']}\t{row['fresh_at']}\t{len(row['links'])} links")
    click.echo(f"{len(rows)} pages")


@cli.command("remember")
@workspace_option
@click.argument("text")
@click.option(
    "--hint", "hints", multiple=True, metavar="SLUG", help="Page the fact belongs to (repeatable)."
)
def remember_command(workspace: Path, text: str, hints: tuple[str, ...]) -> None:
    """Save a fact to the intake buffer and today's archive; prints its id."""
    entry = remember(build_settings(workspace), text, list(hints))
    click.echo(entry.id)


@cli.command()
@workspace_option
@json_option
def buffer(workspace: Path, as_json: bool) -> None:
    """List the entries waiting in the intake buffer."""
    entries = read_buffer(build_settings(workspace))
    rows = [{"id": e.id, "at": iso_utc(e.at), "text": e.text, "hints": e.hints} for e in entries]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        first_line = str(row["text"]).split("\n", 1)[0]
        click.echo(f"{row['id']}  {row['at']}  {first_line}")
    click.echo(f"{len(rows)} entries")


@cli.command()
@workspace_option
@json_option
def stats(workspace: Path, as_json: bool) -> None:
    """Tier, graph support and corpus counts."""
    figures = collect_stats(build_settings(workspace)).as_json()
    if as_json:
        _print_json(figures)
        return
    for key, value in figures.items():
        click.echo(f"{key}: {json.dumps(value)}")


@cli.group()
def config() -> None:
    """Workspace configuration."""


@config.command()
@workspace_option
def migrate(workspace: Path) -> None:
    """Copy explicitly set, non-default memory.v2 tunables into memory.substrate."""
    settings: Settings = build_settings(workspace)
    copied = migrate_config(settings.workspace.config_path)
    for key in copied:
        click.echo(f"set {key}")
    click.echo(f"{len(copied)} keys migrated")


def main() -> None:
    cli(prog_name="memory")
