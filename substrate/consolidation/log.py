"""Where each entry went and why, kept for `memory consolidate --explain ID`.

A journal of one JSON line per decided entry under `.substrate/` (operational
state: losing it loses explanations, never facts), compacted to its newest
`KEEP` lines once it doubles that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.outcome import EntryOutcome
from substrate.safety import hold_lock, write_atomic

KEEP = 5000


def log_path(settings: Settings) -> Path:
    return settings.workspace.state_dir / "consolidation-log.jsonl"


def record(settings: Settings, at: float, planner: str, entries: list[EntryOutcome]) -> None:
    if not entries:
        return
    path = log_path(settings)
    lines = "".join(
        json.dumps({"at": at, "planner": planner, **e.as_json()}, ensure_ascii=False) + "\n"
        for e in entries
    )
    with hold_lock(path.with_name(path.name + ".lock"), purpose="consolidation log"):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(lines)
        if path.stat().st_size > 2 * KEEP * 200:  # rough bytes per line
            kept = path.read_text(encoding="utf-8").splitlines(keepends=True)[-KEEP:]
            write_atomic(path, "".join(kept), durable=False)


def decisions(settings: Settings, entry_id: str) -> list[dict[str, Any]]:
    """Every logged decision about `entry_id`, oldest first."""
    try:
        text = log_path(settings).read_text(encoding="utf-8")
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line torn by a crash
        if isinstance(row, dict) and row.get("id") == entry_id:
            found.append(row)
    return found
