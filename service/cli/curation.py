"""`memory review`, `recent`, `apply`, `reject`, `undo`, `populate`: the
operator controls of curation (one implementation in `substrate.curation`,
shared with HTTP)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, print_json, workspace_option
from service.settings_loader import build_settings
from substrate.curation import (
    apply_candidate,
    curate,
    recent_json,
    reject_candidate,
    review_json,
    undo_candidate,
)
from substrate.errors import InvalidInputError
from substrate.llm import open_chat_client
from substrate.sessions import open_session_log


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
    if as_json:
        print_json(outcome.as_json())
    else:
        click.echo(
            f"{len(outcome.applied)} applied, {len(outcome.pending)} for review, "
            f"{len(outcome.ignored)} ignored, {len(outcome.dropped)} dropped (evidence)"
        )
