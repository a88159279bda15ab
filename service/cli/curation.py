"""`memory review`, `recent`, `apply`, `reject`, `undo`, `populate`: the
operator controls of curation (one implementation in `substrate.curation`,
shared with HTTP)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

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
from service.cli.target import local_memory, refuse_while_served, served_client
from service.settings_loader import build_settings
from substrate.config import set_substrate_key
from substrate.config.schema import CURATION_MODES
from substrate.curation import (
    apply_candidate,
    compact,
    curate,
    edit_candidate,
    recent_json,
    reject_candidate,
    restore,
    review_json,
    undo_candidate,
)
from substrate.errors import InvalidInputError
from substrate.llm import open_chat_client, resolve_llm
from substrate.sessions import finalizations as queue, open_session_log


@click.command("review")
@workspace_option
@json_option
def review(workspace: Path, as_json: bool) -> None:
    """Curation candidates waiting for an operator (apply or reject each)."""
    data = review_json(build_settings(workspace))
    if as_json:
        print_json(data)
        return
    for c in data["candidates"]:
        click.echo(f"{c['id']} [{c['target']}] {c['text']}  ({c['reason']})")
    if not data["candidates"]:
        click.echo("nothing waits for review")


@click.command("recent")
@workspace_option
@json_option
def recent_command(workspace: Path, as_json: bool) -> None:
    """Curation operations applied to the profile, newest first (undo any)."""
    data = recent_json(build_settings(workspace))
    if as_json:
        print_json(data)
        return
    for op in data["operations"]:
        click.echo(f"{op['id']} -> {op['file']}: {op['text']}")
    if not data["operations"]:
        click.echo("no curation operations yet")


def _one(action: Any, verb: str) -> Any:
    @click.command(verb)
    @workspace_option
    @json_option
    @click.argument("candidate_id")
    def command(workspace: Path, as_json: bool, candidate_id: str) -> None:
        client = served_client(workspace)
        if client is not None:  # the service owns the workspace: the change is its own
            done = client.post(f"/v1/curation/{quote(candidate_id, safe='')}/{verb}", {})
        else:
            done = action(build_settings(workspace), candidate_id)
        if as_json:
            print_json(done)
        else:
            click.echo(f"{verb}: {done['id']} ({done['status']}) {done['text']}")

    command.help = {
        "apply": "Apply a pending curation candidate to its profile file.",
        "reject": "Reject a pending curation candidate.",
        "undo": "Take back exactly what an applied candidate added (refused if the file "
        "changed since).",
    }[verb]
    return command


apply_command = _one(apply_candidate, "apply")
reject_command = _one(reject_candidate, "reject")
undo_command = _one(undo_candidate, "undo")


@click.command("populate")
@workspace_option
@json_option
@click.option("--session", "session_id", required=True, help="The session to curate now.")
def populate(workspace: Path, as_json: bool, session_id: str) -> None:
    """A manual curation checkpoint: read SESSION's messages now (needs an LLM)."""
    service = served_client(workspace)
    if service is not None:  # the service owns the workspace: curated there
        done = service.post("/v1/curation/populate", {"session_id": session_id})
        _print_curated(done, as_json)
        return
    settings = build_settings(workspace)
    client = open_chat_client(settings)
    if client is None:
        raise InvalidInputError(
            "curation is off: no model is configured ([memory.substrate.llm] base_url and model)"
        )
    log = open_session_log(settings.workspace)
    messages = log.messages(session_id)
    if not messages:
        raise InvalidInputError(f"session {session_id!r} has no logged messages")
    outcome = curate(settings, log, client, session_id, cutoff=messages[-1].id, clock=time.time())
    _print_curated(outcome.as_json(), as_json)


def _print_curated(done: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(done)
        return
    click.echo(
        f"{len(done['applied'])} applied, {len(done['pending'])} for review, "
        f"{len(done['ignored'])} ignored, {len(done['dropped'])} dropped (evidence)"
    )


@click.group("finalization")
@group_workspace_option
@group_json_option
def finalization(workspace: Path | None, as_json: bool | None) -> None:
    """Session endings queued for curation: list them, retry one, prune old rows."""


@finalization.command("list")
@group_workspace_option
@group_json_option
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@click.pass_context
def finalization_list(
    ctx: click.Context, workspace: Path | None, as_json: bool | None, limit: int
) -> None:
    """Finalizations, newest first: session, reason, cutoff, status, attempts, cursor, code."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    log = open_session_log(build_settings(workspace).workspace, read_only=True)
    rows = queue.listed(log, limit)
    if as_json:
        print_json({"finalizations": [r.as_json() for r in rows]})
        return
    for r in rows:
        code = f" ({r.code})" if r.code else ""
        click.echo(
            f"{r.id} {r.session_id} [{r.reason}] {r.status}{code}: up to message "
            f"{r.cutoff_message_id} ({r.cutoff_count} messages), read to {r.cursor}, "
            f"{r.attempts} attempts"
        )
    if not rows:
        click.echo("no session has ended yet")


@finalization.command("retry")
@group_workspace_option
@group_json_option
@click.argument("finalization_id", type=click.IntRange(1, 2**63 - 1))
@click.pass_context
def finalization_retry(
    ctx: click.Context, workspace: Path | None, as_json: bool | None, finalization_id: int
) -> None:
    """Queue a failed or skipped finalization again (it resumes after its cursor)."""
    workspace, as_json = workspace_of(ctx, workspace), json_of(ctx, as_json)
    refuse_while_served(workspace, "finalization retry")
    log = open_session_log(build_settings(workspace).workspace)
    row = queue.retry(log, finalization_id, time.time())
    if as_json:
        print_json(row.as_json())
    else:
        click.echo(f"queued {row.id} again ({row.session_id}, from message {row.cursor})")


@finalization.command("prune")
@group_workspace_option
@click.option(
    "--keep", type=click.IntRange(0, 1_000_000), default=queue.KEEP_TERMINAL, show_default=True
)
@click.pass_context
def finalization_prune(ctx: click.Context, workspace: Path | None, keep: int) -> None:
    """Drop finished rows beyond the newest KEEP."""
    refuse_while_served(workspace_of(ctx, workspace), "finalization prune")
    log = open_session_log(build_settings(workspace_of(ctx, workspace)).workspace)
    click.echo(f"pruned {queue.prune(log, keep)} finalizations")


@click.command("status")
@workspace_option
@json_option
def status(workspace: Path, as_json: bool) -> None:
    """Learning at a glance: the log, finalizations, curation, promotions, profile budgets."""
    service = served_client(workspace)  # the service has called the model: it knows
    data = service.get("/v1/curation/status") if service else local_memory(workspace).status()
    if as_json:
        print_json(data)
        return
    model = f"model {data['model']}" if data["model_configured"] else "no model: curation is off"
    click.echo(f"curation mode {data['curation_mode']} ({model})")
    click.echo(f"log: {data['sessions']} sessions, {data['messages']} messages")
    for key in ("finalizations", "candidates", "promotions"):
        counts = ", ".join(f"{n} {s}" for s, n in data[key].items()) or "none"
        click.echo(f"{key}: {counts}")
    for name, use in data["profile"].items():
        click.echo(f"{name}: {use['chars']} / {use['budget']} characters")


@click.command("mode")
@workspace_option
@click.argument("mode", required=False, type=click.Choice(CURATION_MODES))
def mode(workspace: Path, mode: str | None) -> None:
    """Show the curation mode, or set it: off, review (everything waits for an
    operator) or auto (explicit, non-sensitive, low-risk facts apply)."""
    settings = build_settings(workspace)
    client = served_client(workspace) if mode is not None else None
    if client is not None:  # the service owns the workspace: it writes its config
        client.post("/v1/curation/mode", {"mode": mode})
        settings = build_settings(workspace)
    elif mode is not None:
        set_substrate_key(settings.workspace.config_path, "curation_mode", mode)
        settings = build_settings(workspace)
    model = "" if resolve_llm(settings) is not None else " (no model configured: curation is off)"
    click.echo(f"curation mode: {settings.tuning.curation_mode}{model}")


@click.command("compact")
@workspace_option
@json_option
@click.argument("file", required=False, type=click.Choice(["USER.md", "MEMORY.md"]))
@click.option(
    "--restore", "backup", help="Put this backup (a name in memory/profile/backups/) back."
)
def compact_command(workspace: Path, as_json: bool, file: str | None, backup: str | None) -> None:
    """Compact USER.md or MEMORY.md through the model (scanner and budget checked,
    a timestamped backup first), or put a backup back with --restore."""
    if file is None and backup is None:
        raise click.UsageError(
            "give a FILE to compact (`memory compact USER.md`), or --restore BACKUP to put "
            "one back (`memory compact --restore NAME`, names under memory/profile/backups/)"
        )
    if file is not None and backup is not None:
        raise click.UsageError("give a FILE to compact or --restore BACKUP, not both")
    refuse_while_served(workspace, "compact")
    settings = build_settings(workspace)
    if backup is not None:
        done = restore(settings, backup)
    else:
        client = open_chat_client(settings)
        if client is None:
            raise InvalidInputError(
                "compaction needs a model: set [memory.substrate.llm] base_url and model"
            )
        assert file is not None
        done = compact(settings, client, file)
        client.close()
    if as_json:
        print_json(done)
    elif backup is not None:
        replaced = done["backup_of_replaced"]
        click.echo(f"restored {done['file']} from {backup} (the replaced file: {replaced})")
    else:
        click.echo(
            f"compacted {done['file']}: {done['before_chars']} -> {done['after_chars']} "
            f"characters (backup {done['backup']})"
        )


@click.command("edit")
@workspace_option
@json_option
@click.argument("candidate_id")
@click.argument("text")
def edit(workspace: Path, as_json: bool, candidate_id: str, text: str) -> None:
    """Reword an applied curation candidate's line in its profile file."""
    client = served_client(workspace)
    if client is not None:  # the service owns the workspace: reworded there
        path = f"/v1/curation/{quote(candidate_id, safe='')}/edit"
        done = client.post(path, {"text": text})
    else:
        done = edit_candidate(build_settings(workspace), candidate_id, text)
    if as_json:
        print_json(done)
    else:
        click.echo(f"edited {done['id']}: {done['text']}")
