"""`memory consolidate`: file the buffer into concept pages (or explain where an
entry went), in this process or through the running service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, print_json, url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for
from substrate.consolidation.lifecycle import NOTHING_TO_RETRACT


@click.command()
@workspace_option
@url_option
@json_option
@click.option("--dry-run", is_flag=True, help="Plan one batch and print it; write nothing.")
@click.option("--limit", type=click.IntRange(1), metavar="N", help="Take at most N entries.")
@click.option("--explain", "entry_id", metavar="ENTRY_ID", help="Where that entry went and why.")
def consolidate(
    workspace: Path,
    url: str | None,
    as_json: bool,
    dry_run: bool,
    limit: int | None,
    entry_id: str | None,
) -> None:
    """File the buffer's entries into concept pages (bounded runs; written pages are
    searchable when it returns)."""
    target = target_for(workspace, url, cli_capabilities)
    if entry_id is not None:
        found = target.explain(entry_id)
        if as_json:
            print_json(found)
        else:
            _print_explained(found)
        return
    outcome = target.consolidate(dry_run, limit)
    if as_json:
        print_json(outcome)
        return
    _print_outcome(outcome)


def _print_outcome(outcome: dict[str, Any]) -> None:
    if outcome.get("tier") == "v1":  # the knowledge base's filer (injector.v1.filing)
        prefix = "dry run: " if outcome["dry_run"] else ""
        notes = ", ".join(outcome["notes"]) or "no note"
        click.echo(
            f"{prefix}{outcome['filed']} filed into the knowledge base ({notes}), "
            f"{outcome['earlier']} filed earlier, {len(outcome['skipped'])} skipped"
        )
        return
    for entry in outcome["entries"]:
        where = f" -> {entry['page']}" if entry["page"] else ""
        by = f" [{entry['decided_by']}]" if entry["decided_by"] else ""
        change = _change(entry)
        click.echo(f"{entry['status']:8s} {entry['id']}{where}{by}: {entry['reason']}{change}")
    for note in outcome["fallbacks"]:
        click.echo(f"note     {note}", err=True)
    prefix = "dry run: " if outcome["dry_run"] else ""
    click.echo(
        f"{prefix}{outcome['entries_seen']} entries: {outcome['filed']} filed, "
        f"{outcome['merged']} merged, {outcome['skipped']} skipped, {outcome['kept']} kept; "
        f"{outcome['pages_created']} pages created, {outcome['pages_updated']} updated; "
        f"{outcome['remaining']} left in the buffer"
    )


def _change(entry: dict[str, Any]) -> str:
    """What a filed fact did to its page's facts, when it changed one."""
    replaced = ", ".join(entry.get("replaced") or [])
    if entry.get("lifecycle") == "update" and replaced:
        return f"; supersedes {replaced}"
    if entry.get("lifecycle") == "retract" and replaced:
        return f"; retracts {replaced}"
    if entry.get("lifecycle") == "history":
        return f"; history, replaced by {entry.get('superseded_by')}"
    if entry.get("decision") == NOTHING_TO_RETRACT:
        return f"; {NOTHING_TO_RETRACT}"
    return ""


def _print_explained(found: dict[str, Any]) -> None:
    pages = ", ".join(found["pages"]) or "no page"
    click.echo(f"{found['id']}: {found['state']} ({pages})")
    for fact in found.get("facts", []):
        slot = f" [{fact['slot']}]" if fact["slot"] else ""
        state = fact["status"]
        if state != "current":
            by = f" by {fact['superseded_by']}" if fact["superseded_by"] else ""
            state += f"{by} on {fact['until'] or 'an unknown day'}"
        click.echo(f"  now: {state} on {fact['page']}{slot}")
    for row in found["decisions"]:
        by = f" [{row['decided_by']}]" if row.get("decided_by") else ""
        click.echo(f"  {row['status']} -> {row.get('page')}{by}: {row['reason']}")
        if row.get("lifecycle"):
            click.echo(f"    {_lifecycle(row)}")


def _lifecycle(row: dict[str, Any]) -> str:
    """What the fact did to its page's facts, in words: the slot family weighed,
    the current facts it was weighed against, and the decision."""
    slot = f"slot {row['slot']}" if row.get("slot") else "no slot"
    family = f", family {row['family']}" if row.get("family") else ""
    weighed = row.get("candidates") or []
    candidates = f"; candidates: {', '.join(weighed)}" if weighed else "; candidates: none"
    said = row.get("decision") or row["lifecycle"]
    replaced = ", ".join(row.get("replaced") or [])
    if said in ("supersedes", "retracts") and replaced:
        said = f"{said} {replaced}"
    elif row["lifecycle"] == "history":
        said = f"history: already replaced by {row.get('superseded_by')}"
    why = f" ({row['lifecycle_reason']})" if row.get("lifecycle_reason") else ""
    return f"{slot}{family}{candidates}; decision: {said}{why}"
