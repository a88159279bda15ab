"""The walk over lineage: from forgotten messages to what was derived from them.

Every derived record names its sources (`lineage`): a captured fact its
messages (on its buffer entry and its bullet; facts captured before facts
carried their own lineage are found through the transcripts' `captured`
records), a promoted profile line its evidence sessions and messages, a
curation candidate its evidence messages. The walk reads those names and
sorts what the forgotten messages reach:

- a captured fact whose every source is forgotten is forgotten, unless a
  message that stays still states it (the person said it elsewhere): then it
  stays, its lineage repointed to that message;
- one with other sources left keeps those;
- a promotion with evidence in a touched session is derived again from what
  the log still holds (`profile` does that);
- a curation candidate with a forgotten evidence message loses that
  evidence, and with none left, the candidate.

What is derived from a fact (the facts it replaced) is the writer's business
on its page (`facts.released`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from substrate.config import Settings
from substrate.curation.statements import durable_statements
from substrate.intake import read_buffer
from substrate.lineage import normalized
from substrate.pages import fact_bullets, fresh_pages
from substrate.pages.facts import CAPTURED
from substrate.safety import read_text_snapshot
from substrate.sessions import SessionLog, transcript_path
from substrate.sessions.transcripts import read_records

SUPPORT_SCAN = 50  # messages read when looking for another statement of a fact


@dataclass
class Reached:
    """What forgotten messages reach: `facts` to forget (id -> words), `repoint`
    (id -> the messages still stating it)."""

    facts: dict[str, str] = field(default_factory=dict)
    repoint: dict[str, tuple[int, ...]] = field(default_factory=dict)


def captured_lineage(settings: Settings, sessions: Collection[str]) -> dict[str, int]:
    """Entry id -> message id, as capture recorded it in these sessions'
    transcripts (the lineage of facts captured before they carried their own).
    Read before the transcripts are rewritten."""
    out: dict[str, int] = {}
    for session_id in sessions:
        path = transcript_path(settings.workspace, session_id)
        if not path.exists():
            continue
        records, _ = read_records(path)
        for record in records:
            facts = record.get("facts")
            if "captured" in record and isinstance(facts, dict):
                out.update({str(k): int(v) for k, v in facts.items() if isinstance(v, int)})
    return out


def facts_reached(
    settings: Settings, log: SessionLog, gone: Collection[int], captured: Mapping[str, int]
) -> Reached:
    """The captured facts (buffered or filed) the forgotten messages `gone` reach."""
    lost = set(gone)
    reached = Reached()
    for item in read_buffer(settings):
        if item.source == CAPTURED:
            lineage = _sources(item.sources, item.id, captured)
            _sort(reached, log, item.id, item.text, lineage, lost)
    entries = fresh_pages(settings.workspace)
    legacy = {i for i, m in captured.items() if m in lost}
    for page in entries.values():
        if not lost.intersection(page.sources) and not legacy.intersection(page.filed):
            continue
        text, _ = read_text_snapshot(settings.workspace.concepts_dir / page.path)
        for b in fact_bullets(text):
            if b.source == CAPTURED and b.entry_id:
                lineage = _sources(b.sources, b.entry_id, captured)
                _sort(reached, log, b.entry_id, b.text, lineage, lost)
    return reached


def _sources(own: tuple[int, ...], entry_id: str, captured: Mapping[str, int]) -> set[int]:
    legacy = captured.get(entry_id)
    return set(own) | ({legacy} if legacy is not None else set())


def _sort(
    reached: Reached, log: SessionLog, entry_id: str, text: str, sources: set[int], lost: set[int]
) -> None:
    if not sources & lost:
        return
    left = sources - lost
    if not left:
        left = set(still_stated(log, text, lost))
    if left:
        reached.repoint[entry_id] = tuple(sorted(left))
    else:
        reached.facts[entry_id] = text


def still_stated(log: SessionLog, text: str, lost: Collection[int]) -> list[int]:
    """Direct user messages, not among `lost`, that state `text` again: its
    words stand in them, or capture reads the same statement out of them."""
    wanted = normalized(text)
    if not wanted:
        return []
    out = []
    for message in log.search([text], roles=("user",), limit=SUPPORT_SCAN):
        if message.id in lost or not message.direct:
            continue
        said = normalized(message.text)
        if wanted in said or any(
            normalized(s.text) == wanted for s in durable_statements(message.text, None)
        ):
            out.append(message.id)
    return out
