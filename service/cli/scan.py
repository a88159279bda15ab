"""`memory scan`: judge text the way a write would, and write nothing.

A user feature (is this note safe to keep? would this page be quarantined?)
as well as a check. The policy follows `--source`, as it does for writes: a
user's own words (`user`) may state preferences that read like
instructions; anything else is judged strictly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, print_json, print_json_line, workspace_option
from service.settings_loader import build_scanner, sentence_embedder
from substrate import WorkspaceError, load_config
from substrate.config import open_workspace
from substrate.safety import SOURCES, Scanner

source_option = click.option(
    "--source",
    type=click.Choice(SOURCES),
    default="user",
    show_default=True,
    help="Who wrote the text: user (a remember or profile edit) is judged by the user "
    "policy; import, llm, tool, extracted and captured by the strict one.",
)


@click.command("scan")
@workspace_option
@json_option
@source_option
@click.argument("text", required=False)
@click.option(
    "--batch",
    is_flag=True,
    help='Read one text per line from stdin (plain, or JSON {"text": ...}); print one JSON '
    'line each: {"ok", "rule", "policy", "action"}. Exits 0 whatever it finds.',
)
def scan(workspace: Path, as_json: bool, source: str, text: str | None, batch: bool) -> None:
    """Judge TEXT with the safety scanner; exit 2 when it would not be stored as is
    (refused, held for review or quarantined: the answer says which)."""
    if batch == (text is not None):
        raise click.UsageError("give a TEXT or --batch, not both")
    scanner = _scanner(workspace)
    if batch:
        for line in sys.stdin:
            line_text, line_source = _batch_text(line.rstrip("\n"), source)
            verdict = scanner.check(line_text, line_source)
            print_json_line(
                {
                    "ok": verdict.ok,
                    "rule": verdict.rule,
                    "policy": verdict.policy,
                    "action": verdict.action,
                }
            )
        return
    assert text is not None
    verdict = scanner.check(text, source)
    if as_json:
        print_json({**verdict.as_json(), "source": source, "quarantine": verdict.quarantine})
    elif verdict.ok:
        click.echo(f"ok under the {verdict.policy} policy")
    elif verdict.quarantine:
        click.echo(f"would be quarantined: {verdict.rejection().message}")
    elif verdict.held:
        click.echo(f"would be held for review (kept, not filed): {verdict.rejection().message}")
    else:
        click.echo(f"rejected: {verdict.rejection().message}")
    if not verdict.ok:
        sys.exit(2)


def _scanner(workspace: Path) -> Scanner:
    """The workspace's scanner when there is one (its config may turn the learned
    detector off); the default scanner otherwise, so `scan` needs no workspace."""
    try:
        ws = open_workspace(workspace)
    except WorkspaceError:
        return build_scanner(None, sentence_embedder(None))
    return build_scanner(load_config(ws.config_path), sentence_embedder(ws.state_dir))


def _batch_text(line: str, source: str) -> tuple[str, str]:
    """A JSON object with a string "text" is read as one (it may name its "source");
    any other line, JSON-looking or not, is itself the text."""
    if line.lstrip().startswith("{"):
        try:
            doc: Any = json.loads(line)
        except ValueError:
            return line, source
        if isinstance(doc, dict) and isinstance(doc.get("text"), str):
            named = doc.get("source")
            return doc["text"], named if isinstance(named, str) and named in SOURCES else source
    return line, source
