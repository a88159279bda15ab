"""`memory page ...`: one page read, written, edited, moved, deleted (into the
trash), restored or pinned as core; the same operations as the HTTP routes and
the MCP tools, through `Memory`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from service.cli.base import (
    group_json_option,
    group_workspace_option,
    json_of,
    print_json,
    url_option,
    workspace_of,
)
from service.cli.target import target_for
from service.memory import Target


@click.group("page")
@group_workspace_option
@group_json_option
def page(workspace: Path | None, as_json: bool | None) -> None:
    """Read, write, edit, move, delete, restore or pin one concept page."""


def _target(url: str | None) -> Target:
    ctx = click.get_current_context()
    return target_for(workspace_of(ctx, None), url, list)


def _answer(done: dict[str, Any], line: str) -> None:
    if json_of(click.get_current_context(), None):
        print_json(done)
        return
    click.echo(line)
    for warning in done.get("warnings", []):
        click.echo(f"  warning: {warning}")


def _content(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


@page.command("show")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
def show(workspace: Path | None, as_json: bool | None, url: str | None, slug: str) -> None:
    """Print a page and its content hash (what `edit --sha256` names)."""
    found = _target(url).read_page(slug)
    if json_of(click.get_current_context(), as_json):
        print_json(found)
        return
    click.echo(f"# sha256 {found['sha256']}", err=True)
    click.echo(found["content"], nl=False)


@page.command("write")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
@click.argument("content")
@click.option("--overwrite", is_flag=True, help="Replace the page when it exists.")
@click.option("--sha256", "expected", help="Replace only if the page still has this hash.")
def write(
    workspace: Path | None,
    as_json: bool | None,
    url: str | None,
    slug: str,
    content: str,
    overwrite: bool,
    expected: str | None,
) -> None:
    """Create a page (CONTENT, or - for standard input), validated and scanned like ingest."""
    done = _target(url).write_page(slug, _content(content), overwrite, expected)
    _answer(done, f"{done['op']} {slug} (sha256 {done['sha256'][:12]})")


@page.command("edit")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
@click.option("--sha256", "expected", required=True, help="The hash `page show` printed.")
@click.option("--old", help="The text to replace (it must occur once).")
@click.option("--section", help="A heading whose body is replaced.")
@click.option("--new", "new", required=True, help="The replacing text (- for standard input).")
def edit(
    workspace: Path | None,
    as_json: bool | None,
    url: str | None,
    slug: str,
    expected: str,
    old: str | None,
    section: str | None,
    new: str,
) -> None:
    """Replace a span (--old) or a section's body (--section) of a page that still
    has the hash you read; an edit made since is refused, not lost."""
    done = _target(url).edit_page(slug, expected, _content(new), old, section)
    _answer(done, f"edited {slug} (sha256 {done['sha256'][:12]})")


@page.command("move")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
@click.argument("to")
def move(workspace: Path | None, as_json: bool | None, url: str | None, slug: str, to: str) -> None:
    """Rename a page's slug; the links to it in other pages are rewritten."""
    done = _target(url).move_page(slug, to)
    _answer(done, f"moved {slug} to {to}; links rewritten in {len(done['relinked'])} page(s)")


@page.command("delete")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
def delete(workspace: Path | None, as_json: bool | None, url: str | None, slug: str) -> None:
    """Move a page into memory/trash/ (`memory page restore` brings it back)."""
    done = _target(url).delete_page(slug)
    _answer(done, f"deleted {slug} (in the trash as {done['trash']})")


@page.command("restore")
@group_workspace_option
@group_json_option
@url_option
@click.argument("name")
def restore(workspace: Path | None, as_json: bool | None, url: str | None, name: str) -> None:
    """Bring a deleted page back: NAME as `memory page trash` lists it, or its slug."""
    done = _target(url).restore_page(name)
    _answer(done, f"restored {done['page']}")


@page.command("trash")
@group_workspace_option
@group_json_option
@url_option
def trash(workspace: Path | None, as_json: bool | None, url: str | None) -> None:
    """The deleted pages, newest first."""
    listed = _target(url).trash()
    if json_of(click.get_current_context(), as_json):
        print_json({"trash": listed})
        return
    for item in listed:
        click.echo(f"{item['name']}  (deleted {item['deleted_at']})")
    if not listed:
        click.echo("the trash is empty")


@page.command("pin")
@group_workspace_option
@group_json_option
@url_option
@click.argument("slug")
@click.option("--off", is_flag=True, help="Unpin: no longer core.")
def pin(
    workspace: Path | None, as_json: bool | None, url: str | None, slug: str, off: bool
) -> None:
    """Mark a page as core (on every card's core lane), or not (--off)."""
    done = _target(url).pin_page(slug, not off)
    _answer(done, f"{'unpinned' if off else 'pinned'} {slug}")
