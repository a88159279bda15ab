"""Erasing from the log: messages and whole sessions taken out of their
transcripts, and a forgotten fact's words cut out of the messages that said
them, together with the tombstone that records it.

The transcripts are the authority and stop being append-only here: a forget
rewrites them (a session left with no message loses its file). Every
transcript the erasure changes, and the tombstone file, are one journaled
change (`memory/.log.journal`); the journal stays until the derived database
has been brought up to the new transcripts in the same SQLite transaction, so
a kill at any point leaves the transcripts and the tombstone both changed or
neither, and a database that missed the change is derived again from them by
the next writer (`recover_erasure`, which every log write runs first).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from substrate.config.workspace import Workspace
from substrate.lineage import normalized
from substrate.safety import journal, read_bytes_snapshot
from substrate.sessions.rebuild import resync_transcript
from substrate.sessions.transcripts import (
    Record,
    read_records,
    transcript_path,
    transcripts_dir,
)

FORGOTTEN = "[forgotten]"  # what a message shows where a forgotten fact's words were


@dataclass(frozen=True)
class Erasure:
    """What a forget takes out of the log: whole `sessions`, single `messages`,
    and `redactions` (message id, words): the words cut out of a message that
    stays."""

    sessions: frozenset[str] = frozenset()
    messages: frozenset[int] = frozenset()
    redactions: tuple[tuple[int, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.sessions or self.messages or self.redactions)


@dataclass(frozen=True)
class Erased:
    """A message the erasure removed (`redacted`: cut, not removed), as it was:
    what its tombstone fingerprints."""

    id: int
    session_id: str
    role: str
    at: float
    text: str
    redacted: bool = False


@dataclass
class ErasurePlan:
    steps: list[journal.Step] = field(default_factory=list)
    erased: list[Erased] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)


def erasure_journal(workspace: Workspace) -> Path:
    return workspace.memory_dir / ".log.journal"


def plan_erasure(
    db: sqlite3.Connection, workspace: Workspace, erasure: Erasure, redacted: set[int]
) -> ErasurePlan:
    """The transcript rewrites `erasure` asks for, as journal steps, and what
    they erase. `redacted`: the messages whose words are to be cut (the ids of
    `erasure.redactions`). Call inside a write transaction."""
    by_session: dict[str, set[int]] = {s: set() for s in erasure.sessions}
    wanted = set(erasure.messages) | redacted
    if wanted:
        marks = ",".join("?" * len(wanted))
        for message_id, session_id in db.execute(
            f"SELECT id, session_id FROM messages WHERE id IN ({marks})", tuple(wanted)
        ):
            by_session.setdefault(str(session_id), set()).add(int(message_id))
    cuts: dict[int, list[str]] = {}
    for message_id, words in erasure.redactions:
        cuts.setdefault(message_id, []).append(words)
    plan = ErasurePlan()
    for session_id in sorted(by_session):
        path = transcript_path(workspace, session_id)
        data, snapshot = read_bytes_snapshot(path)
        if data is None:
            continue
        records, _ = read_records(path)
        whole = session_id in erasure.sessions
        kept, erased = _rewritten(session_id, records, whole, set(erasure.messages), cuts)
        if not erased:
            continue
        plan.erased += erased
        plan.paths.append(path)
        if whole or not any("message" in r for r in kept):
            plan.steps.append(journal.Remove(path, snapshot))
        else:
            lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept)
            plan.steps.append(journal.Replace(path, lines.encode("utf-8"), snapshot))
    return plan


def _rewritten(
    session_id: str,
    records: list[Record],
    whole: bool,
    removed: set[int],
    cuts: dict[int, list[str]],
) -> tuple[list[Record], list[Erased]]:
    kept: list[Record] = []
    erased: list[Erased] = []
    for record in records:
        message = record.get("message")
        if not isinstance(message, int) or isinstance(message, bool):
            kept.append(record)
            continue
        was = Erased(message, session_id, str(record["role"]), float(record["at"]), record["text"])
        if whole or message in removed:
            erased.append(was)
            continue
        if message in cuts:
            text = cut_words(str(record["text"]), cuts[message])
            if text != record["text"]:
                erased.append(Erased(was.id, session_id, was.role, was.at, was.text, True))
                record = {**record, "text": text}
        kept.append(record)
    return kept, erased


def cut_words(text: str, phrases: Iterable[str]) -> str:
    """`text` with each phrase (spacing and case aside) replaced by
    `[forgotten]`; a phrase found nowhere in it leaves the whole message
    `[forgotten]`, since the message is where the phrase was said (a
    captured fact's words are tidied from the message's, so they may differ)."""
    out = text
    for phrase in phrases:
        cut = _cut(out, phrase)
        out = FORGOTTEN if cut is None else cut
    return out


def _cut(text: str, phrase: str) -> str | None:
    """`text` with `phrase` cut out wherever it occurs, spacing and case folded;
    None when it occurs nowhere."""
    target = [_word(w) for w in normalized(phrase).split()]
    target = [w for w in target if w]
    if not target:
        return text
    words = text.split()
    folded = [_word(w) for w in words]
    n, found, out, i = len(target), False, [], 0
    while i < len(words):
        if folded[i : i + n] == target:
            out.append(FORGOTTEN)
            found, i = True, i + n
        else:
            out.append(words[i])
            i += 1
    if not found:
        return None
    return " ".join(out)


_PUNCT = "\"'.,;:!?()[]{}<>«»“”‘’…-—"


def _word(word: str) -> str:
    """A word as a phrase is matched: case folded, punctuation at its ends aside."""
    return word.strip(_PUNCT).casefold()


def apply_erasure(
    db: sqlite3.Connection,
    workspace: Workspace,
    plan: ErasurePlan,
    tombstone: journal.Step | None,
    commit: Callable[[], None],
) -> None:
    """Rewrite the transcripts and write the tombstone as one journaled change,
    the database derived again from them before `commit` (its transaction's
    COMMIT) and before the journal goes."""
    steps = [*plan.steps, *([tombstone] if tombstone is not None else [])]

    def derive() -> None:
        for path in plan.paths:
            resync_transcript(db, workspace, path)
        commit()

    journal.commit(erasure_journal(workspace), steps, then=derive)


def recover_erasure(db: sqlite3.Connection, workspace: Workspace) -> bool:
    """A killed erasure's transcripts finished and the database derived again
    from them (inside a write transaction; the journal is `discard`ed once it
    committed). Whether there was one."""
    path = erasure_journal(workspace)
    touched = journal.pending(path)
    if touched is None:
        return False
    journal.recover(path, keep=True)
    for name in touched:
        if Path(name).parent == transcripts_dir(workspace):
            resync_transcript(db, workspace, Path(name))
    return True
