"""The lanes half of `memory doctor`: the learned edges journal and the conversation
files, judged by the modules that own their formats (`edges`, `conversations`)."""

from __future__ import annotations

from pathlib import Path

from lanes.conversations import unreadable_conversations
from lanes.edges import journal_problem
from substrate.index.consistency import DELETE, Problem


def edges_problems(path: Path) -> list[Problem]:
    why = journal_problem(path)
    return [] if why is None else [_delete("learned_edges", path, why)]


def conversation_problems(folder: Path) -> list[Problem]:
    return [
        _delete("conversation_file", p, "does not parse") for p in unreadable_conversations(folder)
    ]


def _delete(kind: str, path: Path, why: str) -> Problem:
    fix = "delete it (derived: starts empty)"
    return Problem(kind, f"{path}: {why}", fix, DELETE, (str(path),))
