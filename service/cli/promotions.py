"""`memory promotions`: what promotion wrote to the profile from the conversation
log, and why a text would or would not be promoted."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import (
    group_json_option,
    group_workspace_option,
    json_of,
    print_json,
    workspace_of,
)
from service.settings_loader import build_settings
from substrate.promotion import PromotionStore, explain
from substrate.sessions import open_session_log


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
