"""`memory purge` and `memory lineage`: what a forget leaves to the derived
stores, rewritten away; and what any item came from and gave rise to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, print_json, url_option, workspace_option
from service.cli.target import target_for


@click.command("purge")
@workspace_option
@url_option
@json_option
@click.option("--trash", is_flag=True, help="Empty the trash too: its pages leave for good.")
def purge(workspace: Path, url: str | None, as_json: bool, trash: bool) -> None:
    """Rewrite every derived store with its live content alone, so no byte of a
    forgotten fact, message or session (nor, with --trash, of a page in the
    trash) stays on disk: the index (live points copied, nothing embedded
    again), the conversation log's and the job queue's databases, the learned
    edges, the page cache. Prints what it rewrote and the bytes freed."""
    done = target_for(workspace, url, list).purge(trash)
    if as_json:
        print_json(done)
        return
    for part in done["rewrote"]:
        click.echo(
            f"rewrote {part['what']}: {_size(part.get('before', 0))} -> "
            f"{_size(part.get('after', 0))}"
        )
    if done.get("forgets_finished"):
        click.echo(f"finished {done['forgets_finished']} forgets a killed process left")
    click.echo(f"freed {_size(done['freed'])} in {done['seconds']:.2f} s")


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if abs(value) < 1024:
            return f"{value:.0f} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


@click.command("lineage")
@workspace_option
@url_option
@json_option
@click.argument("what", metavar="ID|SLUG|SESSION")
def lineage(workspace: Path, url: str | None, as_json: bool, what: str) -> None:
    """What an item was derived from and what was derived from it: a fact (its
    id), a logged message (its id), a session, a promotion (p-...), a curation
    candidate (c-...) or a page. A forgotten item shows its tombstone only."""
    found = target_for(workspace, url, list).lineage(what)
    if as_json:
        print_json(found)
        return
    click.echo(f"{found['kind']} {found['item']}")
    if found.get("forgotten"):
        click.echo(f"  forgotten on {found['forgotten']} (via {found.get('via')})")
    for label, key in (("from", "derived_from"), ("gave", "derived")):
        for item in found.get(key, []):
            click.echo(f"  {label} {_item(item)}")


def _item(item: dict[str, Any]) -> str:
    extra = [f"{k} {v}" for k, v in item.items() if k not in ("kind", "id", "from") and v]
    sources = item.get("from") or []
    if sources:
        extra.append("from " + ", ".join(str(s["id"]) for s in sources))
    return f"{item['kind']} {item.get('id', '')}" + (f" ({'; '.join(extra)})" if extra else "")
