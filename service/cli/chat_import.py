"""`memory import FORMAT FILE`: another assistant's chat history into the log."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import json_option, print_json, workspace_option
from service.cli.target import local_memory, served_client


@click.command("import")
@workspace_option
@json_option
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["chatgpt", "claude", "jsonl"]))
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Read and count; write nothing.")
@click.option(
    "--include-forgotten",
    is_flag=True,
    help="Bring back messages you forgot (they are skipped otherwise).",
)
def import_command(
    workspace: Path, as_json: bool, fmt: str, file: Path, dry_run: bool, include_forgotten: bool
) -> None:
    """Import chat history: a ChatGPT export's conversations.json (chatgpt), a
    Claude export's conversations.json (claude), or JSON Lines of {session, role,
    text, time} (jsonl). Each conversation becomes a session of the conversation
    log with its own dates and roles; a rerun adds only what is new, and never
    what you forgot (unless --include-forgotten). Capture then reads the
    person's turns (the offline extractor, or the model when one is configured)
    and leaves durable facts in the buffer for consolidation."""
    client = served_client(workspace)
    if client is not None:  # the service owns the index: the import is its own
        done = client.post(
            "/v1/sessions/import",
            {
                "format": fmt,
                "content": _text_of(file),
                "name": str(file),
                "dry_run": dry_run,
                "include_forgotten": include_forgotten,
            },
        )
    else:
        from service.importing import import_history

        done = import_history(local_memory(workspace), fmt, file, dry_run, include_forgotten)
    if as_json:
        print_json(done)
        return
    verb = "would import" if dry_run else "imported"
    click.echo(
        f"{verb} {done['sessions']} conversations ({done['new_sessions']} new), "
        f"{done['appended']} messages ({done['already_in_the_log']} already in the log, "
        f"{done['skipped_messages']} without text, "
        f"{done['skipped_as_forgotten']} skipped as forgotten)"
    )
    if not dry_run:
        click.echo(
            f"captured {done['captured']} facts ({done['extractor']} extractor); "
            "`memory consolidate` files them"
        )
    if done.get("index"):
        click.echo(f"index: {done['index']}", err=True)


def _text_of(file: Path) -> str:
    """The export's text, read here (the service may not see this machine's
    files); refused when it is not UTF-8, naming the file."""
    from ingest.chat_import import MAX_FILE
    from substrate import InvalidInputError
    from substrate.safety import read_regular_file

    data = read_regular_file(file, MAX_FILE)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{file}: not UTF-8 (byte {exc.start})") from None
