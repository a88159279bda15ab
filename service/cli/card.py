"""`memory card`: exactly what would be injected for a message."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from service.cli.base import json_option, one_or_batch, print_json, url_option, workspace_option
from service.cli.batch import answer_each, batch_message
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for


@click.command()
@workspace_option
@url_option
@json_option
@click.argument("message", required=False)
@click.option("--conversation", "conversation_id", metavar="ID", help="Continue this conversation.")
@click.option(
    "--voice", is_flag=True, help="Voice front door: the previous turn's card, no retrieval."
)
@click.option(
    "--batch",
    is_flag=True,
    help='Messages from stdin (text, or JSON {"message", "conversation_id"}); one JSON line each.',
)
def card(
    workspace: Path,
    url: str | None,
    as_json: bool,
    message: str | None,
    conversation_id: str | None,
    voice: bool,
    batch: bool,
) -> None:
    """Print exactly what would be injected for MESSAGE: the <memory> card and <info>."""
    one_or_batch(message, batch, "MESSAGE", '`memory card "what did Sam say about Lisbon?"`')
    target = target_for(workspace, url, cli_capabilities)
    if batch:

        def answer(line: str) -> dict[str, Any]:
            text, conv = batch_message(line)
            return target.card(text, conv, voice)

        if answer_each(sys.stdin, answer):
            sys.exit(1)
        return
    assert message is not None
    blocks = target.card(message, conversation_id, voice)
    if as_json:
        print_json(blocks)
        return
    names = ("profile", "memory", "knowledge_base", "recall", "info")
    shown = "\n\n".join(str(blocks[n]) for n in names if blocks.get(n))
    click.echo(shown or f"(nothing to inject: tier {blocks.get('tier', '?')})")
