"""The lanes' derived state checked and, when unreadable, reset loudly: the learned
edges journal and the conversation files (the lanes half of `memory doctor`).

Both are derived: a reader that cannot parse them starts empty rather than
failing a turn. That reset is logged and counted here (`RESETS`, reported by
`GET /v1/memory/stats`), so lost state never goes unnoticed."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import Counter
from pathlib import Path

from substrate.index.consistency import DELETE, Problem

log = logging.getLogger("memory.lanes")
RESETS: Counter[str] = Counter()
_LOCK = threading.Lock()


def note_reset(what: str, path: Path, why: str) -> None:
    with _LOCK:
        RESETS[what] += 1
    log.warning("%s %s is unreadable (%s): starting from empty state", what, path, why)


def edges_problems(path: Path, version: int) -> list[Problem]:
    """The journal's snapshot line must parse at `version`; torn turn lines are
    skipped by readers, so only a bad snapshot loses the graph."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [_delete("learned_edges", path, f"cannot be read ({exc.strerror})")]
    head, _, rest = data.partition(b"\n")
    try:
        doc = json.loads(head)
        good = isinstance(doc, dict) and doc.get("version") == version and "edges" in doc
    except ValueError:
        good = False
    if not good:
        return [_delete("learned_edges", path, "its snapshot line does not parse")]
    torn = 0
    for line in rest.splitlines():
        try:
            json.loads(line)["selected"]
        except (ValueError, TypeError, KeyError):
            torn += 1
    if torn:
        return [_delete("learned_edges", path, f"{torn} turn lines do not parse")]
    return []


def conversation_problems(folder: Path, version: int) -> list[Problem]:
    """Every conversation file must parse as a conversation at `version`."""
    try:
        names = sorted(e.path for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return []
    out = []
    for name in names:
        try:
            doc = json.loads(Path(name).read_bytes())
            good = isinstance(doc, dict) and doc.get("version") == version and "id" in doc
        except (OSError, ValueError):
            good = False
        if not good:
            out.append(_delete("conversation_file", Path(name), "does not parse"))
    return out


def _delete(kind: str, path: Path, why: str) -> Problem:
    fix = "delete it (derived: starts empty)"
    return Problem(kind, f"{path}: {why}", fix, DELETE, (str(path),))
