"""`memory sessions`: the conversation log, read directly (SQLite in WAL mode, so a
running service is no obstacle)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from ingest.chat_import import imported_session
from service.cli.base import (
    group_json_option,
    group_workspace_option,
    json_of,
    print_json,
    workspace_of,
)
from service.settings_loader import build_settings
from substrate.errors import NotFoundError
from substrate.sessions import SessionLog, check_session_id, open_session_log


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
    """The newest sessions: id, title, parent, started, ended and why, message count."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    log = open_session_log(build_settings(workspace).workspace, read_only=True)
    rows = log.sessions(limit)
    if as_json:
        print_json({"sessions": [r.as_json() for r in rows]})
        return
    for r in rows:
        parent = f" (child of {r.parent_id})" if r.parent_id else ""
        ended = f", ended {_when(r.ended)} ({r.end_reason})" if r.ended else ""
        title = f" “{r.title}”" if r.title != r.id else ""
        click.echo(
            f"{r.id}{title}{parent}: {r.messages} messages, started {_when(r.started)}{ended}"
        )
    if not rows:
        click.echo("no sessions logged yet")


def _resolved(log: SessionLog, given: str) -> str:
    """The session `given` names: its id, or an imported conversation's id in its
    export (`abc-123` for `import:chatgpt:abc-123`)."""
    found = imported_session(log, check_session_id(given))
    if found is None:
        raise NotFoundError(f"no session {given!r} in the log")
    return found


@sessions.command("show")
@group_workspace_option
@group_json_option
@click.argument("session_id")
@click.pass_context
def sessions_show(
    ctx: click.Context, workspace: Path | None, as_json: bool | None, session_id: str
) -> None:
    """One session's messages, oldest first; SESSION_ID may be an imported
    conversation's id in its export."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    log = open_session_log(build_settings(workspace).workspace, read_only=True)
    session_id = _resolved(log, session_id)
    row = log.session(session_id)
    if row is None:
        raise NotFoundError(f"no session {session_id!r} in the log")
    messages = log.messages(session_id)
    if as_json:
        print_json({**row.as_json(), "messages": [m.as_json() for m in messages]})
        return
    for m in messages:
        direct = "" if m.direct or m.role != "user" else " (not direct)"
        click.echo(f"[{_when(m.at)}] #{m.id} {m.role}{direct}: {m.text}")


@sessions.command("explain")
@group_workspace_option
@group_json_option
@click.argument("session_id")
@click.pass_context
def sessions_explain(
    ctx: click.Context, workspace: Path | None, as_json: bool | None, session_id: str
) -> None:
    """Every turn of SESSION_ID with its message id (what `memory forget
    --message` takes), and for each of your turns what capture takes from it,
    what it skips (quoted, forwarded, pasted, given to transform, code, reported
    speech, not a lasting statement) and why."""
    from substrate.curation import explain_capture

    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    settings = build_settings(workspace)
    log = open_session_log(settings.workspace, read_only=True)
    session_id = _resolved(log, session_id)
    turns = explain_capture(settings, log, session_id)
    if as_json:
        print_json({"session": session_id, "turns": turns})
        return
    for turn in turns:
        click.echo(f"[{_when(turn['at'])}] message {turn['message']} ({turn['role']})")
        if turn.get("not_read"):
            click.echo(f"  not read: {turn['not_read']}")
        for text in turn["captured"]:
            click.echo(f"  captured: {text}")
        for skip in turn["skipped"]:
            click.echo(f"  skipped ({skip['why']}): {_short(skip['text'])}")
    if not turns:
        click.echo("no turns in this session")


def _short(text: str, chars: int = 100) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= chars else one_line[: chars - 1] + "…"


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")
