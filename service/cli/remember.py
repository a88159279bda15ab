"""`memory remember`: save a fact to the intake buffer, in this process or through
the running service; `--explain` says how the text was read (whose words, about
whom, which slot family, what it does), `--json` prints the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from service.cli.base import url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for
from substrate import BufferEntry, iso_utc
from substrate.intake import parse_at
from substrate.meaning import PASSED_ON, Reading, attribute, read_text


@click.command("remember")
@workspace_option
@url_option
@click.argument("text")
@click.option(
    "--hint", "hints", multiple=True, metavar="SLUG", help="Page the fact belongs to (repeatable)."
)
@click.option(
    "--at", "at", metavar="ISO8601", help="Stamp the fact with this time (backdating, migrations)."
)
@click.option(
    "--explain", is_flag=True, help="Say how the text was read: whose words, what it states."
)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def remember_command(
    workspace: Path,
    url: str | None,
    text: str,
    hints: tuple[str, ...],
    at: str | None,
    explain: bool,
    as_json: bool,
) -> None:
    """Save a fact to the intake buffer and its day's archive; prints its id. Words the
    person only passes on (quoted, forwarded, pasted, given to proofread or translate,
    reported, hypothetical) are kept as a note, theirs or their speaker's, and take
    none of the person's facts: said on stderr. A fact the scanner reads as an attack
    on a judgement alone is kept, held for review (said on stderr), until `memory
    release ID`."""
    moment = parse_at(at) if at else None
    entry = target_for(workspace, url, cli_capabilities).remember(text, hints, moment)
    if as_json or explain:  # the whole reading parses the text: only when it is shown
        heard = read_text(entry.text)
        if as_json:
            click.echo(json.dumps(answer(entry, heard, explain), ensure_ascii=False, indent=2))
            return
        click.echo(entry.id)
        for line in explained(heard):
            click.echo(line)
    else:
        click.echo(entry.id)
        said = attribute(entry.text)
        if said.voice == PASSED_ON:
            click.echo(passed_on_note(read_text(entry.text)), err=True)
    if entry.held is not None:
        why = f" ({entry.why})" if entry.why else ""
        click.echo(
            f"held for review: scanner rule {entry.held!r}{why}; it is kept but not filed "
            f"until `memory release {entry.id}`",
            err=True,
        )


def answer(entry: BufferEntry, heard: Reading, explain: bool) -> dict[str, Any]:
    """The same answer `POST /v1/memory/remember` gives."""
    said = heard.attribution
    out: dict[str, Any] = {
        "id": entry.id,
        "at": iso_utc(entry.at),
        "text": entry.text,
        "held": entry.held,
        "why": entry.why,
        "voice": said.voice,
        "speaker": said.speaker,
    }
    if explain:
        out["reading"] = heard.as_json()
    return out


def passed_on_note(heard: Reading) -> str:
    said = heard.attribution
    whose = f"{said.speaker}'s words" if said.speaker else "words you pass on"
    return f"kept as {whose} ({said.why}): a note that takes none of your facts"


def explained(heard: Reading) -> list[str]:
    """How the text was read, line by line."""
    said, slot = heard.attribution, heard.slot
    if heard.passed_on:
        speaker = f", speaker {said.speaker}" if said.speaker else ""
        return [
            f"voice: passed on ({said.why}){speaker}",
            f"passed on: {said.passed}",
            passed_on_note(heard),
        ]
    lines = ["voice: your own words"]
    if said.passed:
        lines.append(f"left out ({said.why}): {said.passed}")
    subject = heard.subject
    about = "you" if subject.kind == "me" else (subject.name or "nobody named")
    lines.append(f"about: {about}")
    lines.append(f"statement: {heard.kind}")
    if slot.past:
        lines.append("told as the past: history, not a current value")
    if slot.slot:
        value = f" = {slot.value}" if slot.value else ""
        lines.append(f"slot: {slot.slot}{value} (family {heard.family})")
    if slot.olds:
        lines.append(f"ends: {', '.join(slot.olds)}")
    if not slot.slot and not slot.olds and not slot.past:
        lines.append("slot: none (filed as a note on its subject's page)")
    return lines
