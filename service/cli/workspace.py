"""Workspace commands: `init`, `validate`, `pages`, `stats`, `buffer`, `config migrate`,
and `workspace token` (the token that opens one workspace of a multi-workspace
service, `memory serve --workspaces DIR`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from service.cli.base import (
    group_workspace_option,
    json_option,
    print_json,
    workspace_of,
    workspace_option,
)
from service.settings_loader import build_settings
from service.tenants.tokens import workspace_token
from substrate import (
    Settings,
    collect_stats,
    entry_json,
    init_workspace,
    iso_utc,
    load_config,
    load_page_index,
    memory_tier,
    migrate_config,
    open_workspace,
    read_buffer,
    tier_reason,
)


@click.command()
@workspace_option
def init(workspace: Path) -> None:
    """Create a workspace (config.toml, memory/, .substrate/); keeps existing files."""
    created = init_workspace(workspace)
    open_workspace(workspace)
    for path in created:
        click.echo(f"created {path}")
    click.echo(f"workspace ready at {workspace}" + ("" if created else " (nothing to create)"))


@click.command()
@workspace_option
@json_option
def validate(workspace: Path, as_json: bool) -> None:
    """Report pages that fail to parse and links to missing pages; exit 1 if any."""
    index = load_page_index(build_settings(workspace).workspace)
    failures = [{"slug": f.slug, "path": f.path, "error": f.error} for f in index.parse_failures]
    dangling = [{"from": d.source, "to": d.target, "via": d.via} for d in index.dangling_links]
    if as_json:
        print_json({"pages": len(index), "parse_failures": failures, "dangling_links": dangling})
    else:
        for f in failures:
            click.echo(f"parse failure  {f['path']}: {f['error']}")
        for d in dangling:
            click.echo(f"dangling link  {d['from']} -> {d['to']} (via {d['via']})")
        click.echo(
            f"{len(index)} concept pages, {len(failures)} parse failures, "
            f"{len(dangling)} dangling links"
        )
    if failures or dangling:
        sys.exit(1)


@click.command()
@workspace_option
@json_option
def pages(workspace: Path, as_json: bool) -> None:
    """List the PageIndex: one entry per concept page."""
    index = load_page_index(build_settings(workspace).workspace)
    rows = [entry_json(e) for e in index.entries.values()]
    if as_json:
        print_json(rows)
        return
    for row in rows:
        click.echo(f"{row['slug']}\t{row['title']}\t{row['fresh_at']}\t{len(row['links'])} links")
    click.echo(f"{len(rows)} pages")


@click.command()
@workspace_option
@json_option
def buffer(workspace: Path, as_json: bool) -> None:
    """List the entries waiting in the intake buffer."""
    entries = read_buffer(build_settings(workspace))
    rows = [{"id": e.id, "at": iso_utc(e.at), "text": e.text, "hints": e.hints} for e in entries]
    if as_json:
        print_json(rows)
        return
    for row in rows:
        first_line = str(row["text"]).split("\n", 1)[0]
        click.echo(f"{row['id']}  {row['at']}  {first_line}")
    click.echo(f"{len(rows)} entries")


@click.command()
@workspace_option
@json_option
def stats(workspace: Path, as_json: bool) -> None:
    """Tier, graph support and corpus counts."""
    figures = collect_stats(build_settings(workspace)).as_json()
    if as_json:
        print_json(figures)
        return
    for key, value in figures.items():
        click.echo(f"{key}: {json.dumps(value)}")


@click.group()
@group_workspace_option
def config(workspace: Path | None) -> None:
    """Workspace configuration."""


@config.command()
@group_workspace_option
@click.option(
    "--to-v3",
    "to_v3",
    is_flag=True,
    help="Also switch the workspace to tier v3 (the lanes-and-card engine).",
)
@click.pass_context
def migrate(ctx: click.Context, workspace: Path | None, to_v3: bool) -> None:
    """Copy explicitly set, non-default memory.v2 tunables into memory.substrate;
    with --to-v3, also move the workspace to tier v3 and say what changed."""
    workspace = workspace_of(ctx, workspace)
    settings: Settings = build_settings(workspace)
    before = memory_tier(settings.config)
    path = settings.workspace.config_path
    changes = migrate_config(path, to_v3=to_v3)
    for change in changes:
        click.echo(f"set {change}")
    if not to_v3:
        click.echo(f"{len(changes)} keys migrated")
        return
    after = load_config(path)
    tier = memory_tier(after)
    click.echo(f"tier: {before} -> {tier} ({tier_reason(after)})")
    if tier == "off":
        click.echo("memory is off (memory.enabled = false): set it to true to use tier v3")
    elif before == "v1":
        pkb = settings.workspace.pkb().concepts_dir
        click.echo(
            f"the v1 knowledge base ({pkb}) is no longer read; "
            f"`memory ingest {pkb} --workspace {workspace}` imports its notes as concept pages"
        )


@click.group(name="workspace")
def workspace_group() -> None:
    """A workspace's own settings as a multi-workspace service serves it."""


@workspace_group.command(name="token")
@group_workspace_option
@click.option("--rotate", is_flag=True, help="Replace the token: the old one stops working.")
@click.pass_context
def token(ctx: click.Context, workspace: Path | None, rotate: bool) -> None:
    """Print the workspace's token, making one when it has none (or a new one
    with --rotate). Clients send it as `Authorization: Bearer <token>` to
    /w/{workspace}/…; a running service reads it from the workspace, so a
    rotation takes effect on the next request."""
    ws = open_workspace(workspace_of(ctx, workspace))
    value, made = workspace_token(ws, rotate=rotate)
    click.echo(value)
    if made:
        click.echo(f"{'rotated' if rotate else 'made'} the token of {ws.root}", err=True)
