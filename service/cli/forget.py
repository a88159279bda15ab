"""`memory forget`, `memory correct` and `memory history`: taking back and fixing
what memory holds (through `Memory`'s tending, as every surface does)."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, url_option, workspace_option
from service.cli.target import target_for
from substrate.lineage import MESSAGE_ID_LIMIT


@click.command("forget")
@workspace_option
@url_option
@json_option
@click.argument("what", required=False)
@click.option("--page", metavar="SLUG", help="Only facts on this page.")
@click.option("--all", "every", is_flag=True, help="Forget every fact the text matches.")
@click.option("--session", metavar="ID", help="Forget a whole logged session.")
@click.option(
    "--message",
    "message_id",
    type=click.IntRange(1, MESSAGE_ID_LIMIT - 1),
    metavar="ID",
    help="Forget one logged message (its id: `memory sessions explain`), with or without a "
    "running service.",
)
def forget(
    workspace: Path,
    url: str | None,
    as_json: bool,
    what: str | None,
    page: str | None,
    every: bool,
    session: str | None,
    message_id: int | None,
) -> None:
    """Forget WHAT, and what was derived only from it: a page fact (its id, or its
    text: erased from its page, the buffer, the archive and the history, and
    a fact it had replaced is current again), a fact still in the buffer, a
    promotion id (p-...), a curation candidate id (c-...) or the text of a
    profile line. Text matching several facts is refused, listing them, unless
    --all. `--session ID` or `--message ID` forgets a logged conversation or one
    of its messages instead: out of the log, its search, the episodes and every
    card, with the facts and profile lines learned only from it. A tombstone
    keeps no words; `memory purge` compacts what the derived stores still hold."""
    if session is not None or message_id is not None:
        if what is not None:
            raise click.UsageError("give WHAT, or --session/--message, not both")
        gone = target_for(workspace, url, list).forget_conversation(session, message_id, "cli")
        if as_json:
            print_json(gone)
            return
        ids = ", ".join(str(i) for i in gone["messages"])
        if gone.get("already_forgotten"):
            click.echo(f"{gone['forgot']} already forgotten on {gone['already_forgotten']}")
            return
        click.echo(f"forgot {gone['forgot']} {gone['session']}: messages {ids}")
        _derived(gone.get("derived", {}))
        return
    if what is None:
        raise click.UsageError("give WHAT to forget, or --session ID / --message ID")
    done = target_for(workspace, url, list).forget(what, page, every, "cli")
    if as_json:
        print_json(done)
        return
    if done.get("already_forgotten"):
        click.echo(f"{what} was already forgotten on {done['already_forgotten']}")
        return
    # the answer names ids, never the words: the person typed them, they are here
    for fact in done.get("facts", []):
        where = f"on {fact['page']}" if fact["page"] else "in the buffer"
        click.echo(f"forgot fact {fact['id']} {where}")
    for name in done.get("files", []):
        click.echo(f"forgot the line from {name}")
    for line in done.get("pending_lines", []):
        click.echo(f"forgot the parked profile line {line}")
    if not any(done.get(k) for k in ("facts", "files", "pending_lines")):
        click.echo(f"forgot {done['forgot']}")
    _derived(done.get("derived", {}))


def _derived(derived: dict[str, list[str] | int]) -> None:
    """What the forget took along, or gave back, one line each."""
    said = {
        "facts": "facts learned only from it forgotten",
        "restored": "facts current again",
        "promotions": "profile promotions withdrawn",
        "reactivated": "profile promotions active again",
        "candidates": "curation candidates erased",
        "messages_redacted": "messages with its words cut out",
    }
    for key, what in said.items():
        found = derived.get(key)
        if isinstance(found, list) and found:
            click.echo(f"  {what}: {', '.join(str(x) for x in found)}")


@click.command("correct")
@workspace_option
@url_option
@json_option
@click.argument("fact_id")
@click.argument("text")
def correct(workspace: Path, url: str | None, as_json: bool, fact_id: str, text: str) -> None:
    """Correct a page fact: TEXT supersedes FACT_ID (scanned, dated now); the old
    fact stays on its page under Earlier, replaced by the correction."""
    done = target_for(workspace, url, list).correct(fact_id, text)
    if as_json:
        print_json(done)
        return
    click.echo(
        f"corrected {fact_id} on {done['page']}: now {done['fact']['id']}: {done['fact']['text']}"
    )


@click.command("history")
@workspace_option
@url_option
@json_option
@click.argument("what", metavar="SLUG|FACT_ID")
def history(workspace: Path, url: str | None, as_json: bool, what: str) -> None:
    """What changed on a page, or about a fact, when and through what (remember and
    consolidation, corrections, forgets, page edits, hand edits seen by maintain)."""
    found = target_for(workspace, url, list).history(what)
    if as_json:
        print_json(found)
        return
    for event in found["events"]:
        what_of = event.get("text") or event.get("to") or event.get("reason") or ""
        where = f" {event['page']}" if event.get("page") and "fact" in found else ""
        ident = f" {event['id']}" if event.get("id") else ""
        click.echo(f"{event['at'] or '?'}  {event['op']:<16} {event['via']}{ident}{where}")
        if what_of:
            click.echo(f"    {' '.join(str(what_of).split())[:200]}")
    if not found["events"]:
        click.echo(f"nothing recorded about {what}")
