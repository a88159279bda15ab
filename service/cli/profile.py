"""`memory sessions`, `memory promotions` and `memory forget`: the conversation
log and the profile promotion wrote from it. They read the workspace directly
(the log is SQLite in WAL mode and promotions are written under the profile
lock, so a running service is no obstacle)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from service.cli.base import (
    group_json_option,
    group_workspace_option,
    json_of,
    json_option,
    print_json,
    workspace_of,
    workspace_option,
)
from service.cli.target import local_memory
from service.settings_loader import build_settings
from substrate.errors import NotFoundError
from substrate.promotion import PromotionStore, explain
from substrate.sessions import check_session_id, open_session_log


@click.group("sessions", invoke_without_command=True)
@group_workspace_option
@group_json_option
@click.pass_context
def sessions(ctx: click.Context, workspace: Path | None, as_json: bool | None) -> None:
    """The conversation log: `memory sessions` lists the newest sessions."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(sessions_list)


@sessions.command("list")
@group_workspace_option
@group_json_option
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@click.pass_context
def sessions_list(
    ctx: click.Context, workspace: Path | None = None, as_json: bool | None = None, limit: int = 50
) -> None:
    """The newest sessions: id, parent, started, ended and why, message count."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    log = open_session_log(build_settings(workspace).workspace, read_only=True)
    rows = log.sessions(limit)
    if as_json:
        print_json({"sessions": [r.as_json() for r in rows]})
        return
    for r in rows:
        parent = f" (child of {r.parent_id})" if r.parent_id else ""
        ended = f", ended {_when(r.ended)} ({r.end_reason})" if r.ended else ""
        click.echo(f"{r.id}{parent}: {r.messages} messages, started {_when(r.started)}{ended}")
    if not rows:
        click.echo("no sessions logged yet")


@sessions.command("show")
@group_workspace_option
@group_json_option
@click.argument("session_id")
@click.pass_context
def sessions_show(
    ctx: click.Context, workspace: Path | None, as_json: bool | None, session_id: str
) -> None:
    """One session's messages, oldest first."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    log = open_session_log(build_settings(workspace).workspace, read_only=True)
    row = log.session(check_session_id(session_id))
    if row is None:
        raise NotFoundError(f"no session {session_id!r} in the log")
    messages = log.messages(session_id)
    if as_json:
        print_json({**row.as_json(), "messages": [m.as_json() for m in messages]})
        return
    for m in messages:
        direct = "" if m.direct or m.role != "user" else " (not direct)"
        click.echo(f"[{_when(m.at)}] {m.role}{direct}: {m.text}")


@click.group("promotions", invoke_without_command=True)
@group_workspace_option
@group_json_option
@click.pass_context
def promotions(ctx: click.Context, workspace: Path | None, as_json: bool | None) -> None:
    """What promotion wrote to the profile: active, superseded, strengthened, forgotten."""
    if ctx.invoked_subcommand is not None:
        return
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    store = PromotionStore.load(build_settings(workspace).workspace)
    records = sorted(store.records.values(), key=lambda r: (r.status, r.content))
    if as_json:
        print_json({"records": [r.as_json() for r in records]})
        return
    for r in records:
        more = f", strengthened {r.strengthened}x" if r.strengthened else ""
        by = f" by {r.superseded_by}" if r.superseded_by else ""
        sessions_ = ", ".join(r.evidence_sessions)
        click.echo(f"{r.id} [{r.status}{by}{more}] {r.content}  (sessions: {sessions_})")
    if not records:
        click.echo("no promotions yet")


@promotions.command("explain")
@group_workspace_option
@group_json_option
@click.argument("text")
@click.option("--session", "session_id", help="Count evidence as if said in this session.")
@click.pass_context
def promotions_explain(
    ctx: click.Context,
    workspace: Path | None,
    as_json: bool | None,
    text: str,
    session_id: str | None,
) -> None:
    """What the extractor and detectors make of TEXT, and the evidence for it."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    settings = build_settings(workspace)
    report = explain(
        settings, open_session_log(settings.workspace, read_only=True), text, session_id
    )
    if as_json:
        print_json(report)
        return
    click.echo(f"1. input: {report['input']!r}")
    click.echo(f"2. candidates: {len(report['candidates'])}")
    for refused in report["refused"]:
        click.echo(f"   refused: {refused['text']!r}: {refused['reason']}")
    for row in report["candidates"]:
        if not row["detected"]:
            click.echo(f"   {row['candidate']!r}: no detector recognises it")
            continue
        evidence = row["evidence_sessions"]
        click.echo(
            f"   {row['candidate']!r} -> {row['content']!r} ({row['kind']}, key "
            f"{row['key']!r}, category {row['category']}, file {row['file']})"
        )
        click.echo(
            f"3-5. evidence: {len(evidence)} earlier root sessions "
            f"({', '.join(evidence) or 'none'}); {report['threshold']}: "
            f"{'promotes' if row['promotes'] else 'not yet'}"
        )
        if row["record"]:
            record = row["record"]
            click.echo(f"6. record {record['id']}: {record['status']}")


@click.command("forget")
@workspace_option
@json_option
@click.argument("what")
def forget(workspace: Path, as_json: bool, what: str) -> None:
    """Forget WHAT: a promotion id (p-...: its line leaves the profile, and earlier
    evidence never promotes it again), a curation candidate id (c-...: its line
    leaves the profile), or the text of a profile line."""
    done = local_memory(workspace).forget(what)
    if as_json:
        print_json(done)
    else:
        click.echo(f"forgot {done['forgot']}: {done['content']}")


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")
