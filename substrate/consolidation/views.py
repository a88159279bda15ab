"""Owns `memory/recent.md`: the newest facts filed into pages, one bullet each.

Rewritten after every run that filed something, from what it filed and the
bullets the file already held, newest first by the fact's own date; `<info>`
shows it on every turn, so the assistant sees what was learned lately even
before a search finds it. A hand edit made during the run is kept (the write
is drift-aware) and the next run rewrites from it.
"""

from __future__ import annotations

from datetime import date

from substrate.config import Settings
from substrate.errors import StaleWriteError
from substrate.pages import fold
from substrate.safety import linear, read_text_snapshot, write_atomic

RECENT = "recent.md"
RECENT_FACTS = 20
_LINE = linear(r"^- \[(\d{4}-\d{2}-\d{2})\] (.*) \(\[\[([^\]]+)\]\]\)$")


def update_recent(settings: Settings, filed: list[tuple[date, str, str]]) -> bool:
    """Merge (day, fact, page slug) into recent.md; returns whether it was written."""
    if not filed:
        return False
    path = settings.workspace.view_path(RECENT)
    text, snapshot = read_text_snapshot(path)
    rows: dict[str, tuple[date, str, str]] = {}
    for line in text.split("\n"):
        match = _LINE.match(line)
        if match:
            day = date.fromisoformat(match.group(1))
            rows[fold(match.group(2))] = (day, match.group(2), match.group(3))
    for day, fact, slug in filed:
        one_line = fold(fact)
        rows[one_line] = (day, one_line, slug)
    newest = sorted(rows.values(), key=lambda r: r[0], reverse=True)[:RECENT_FACTS]
    lines = [f"- [{d.isoformat()}] {fact} ([[{slug}]])" for d, fact, slug in newest]
    body = "# Recent\n\nThe newest facts filed into pages.\n\n" + "\n".join(lines) + "\n"
    try:
        write_atomic(path, body, expected=snapshot)
    except StaleWriteError:
        return False
    return True
