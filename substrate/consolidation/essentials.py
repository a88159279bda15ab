"""Owns the current-values section of `memory/essentials.md`.

`<info>` shows essentials on every turn, so it carries the current value of
the user's core slots (name, home, employer, role, phone, e-mail, partner),
read from their own pages (`me/…`) by `views`, after every change: the newest current fact of
each slot, its day and its page. The section is the one under `SECTION`, up
to the next `## ` heading; the rest of the file (a person's notes, the LLM
planner's rewrite) is kept as it is. The write is drift-aware: an edit made
during the run wins, and the next run rewrites from it.
"""

from __future__ import annotations

from typing import Protocol

from substrate.pages import FactBullet, fact_bullets, fold, in_words

ESSENTIALS = "essentials.md"
SECTION = "## Now"
NOTE = "The current value of each core fact, from your own pages (kept by consolidation)."
CORE = {
    "name": "Name",
    "home": "Home",
    "employer": "Work",
    "role": "Role",
    "phone": "Phone",
    "email": "E-mail",
    "partner": "Partner",
}
MINE = "me/"
FACT_CHARS = 200


class PageReader(Protocol):
    """The pages as a change leaves them (`views.Pages`)."""

    def slugs(self) -> set[str]: ...

    def text(self, slug: str) -> str | None: ...


def current_core(pages: PageReader) -> list[tuple[str, FactBullet, str]]:
    """(slot, its newest current fact, the page) for each core slot that has one."""
    best: dict[str, tuple[FactBullet, str]] = {}
    for slug in sorted(pages.slugs()):
        if not slug.startswith(MINE):
            continue
        for bullet in fact_bullets(pages.text(slug) or ""):
            if bullet.current and bullet.slot in CORE:
                held = best.get(bullet.slot)
                if held is None or bullet.day >= held[0].day:
                    best[bullet.slot] = (bullet, slug)
    return [(slot, *best[slot]) for slot in CORE if slot in best]


def now_section(text: str, pages: PageReader) -> str:
    """`text` (the file) with its section derived from `pages`."""
    rows = current_core(pages)
    return with_section(text, render(rows) if rows else "")


def render(rows: list[tuple[str, FactBullet, str]]) -> str:
    lines = [SECTION, "", NOTE, ""]
    for slot, bullet, slug in rows:
        fact = fold(bullet.text)
        if len(fact) > FACT_CHARS:
            fact = fact[:FACT_CHARS].rsplit(" ", 1)[0] + "…"
        lines.append(f"- {CORE[slot]}: {fact} (since {in_words(bullet.day)}, [[{slug}]])")
    return "\n".join(lines) + "\n"


def with_section(text: str, section: str) -> str:
    """`text` with its `SECTION` replaced by `section` (added after the title, or
    at the top, when missing; removed when `section` is empty)."""
    lines = text.split("\n") if text else []
    start = next((i for i, line in enumerate(lines) if line.strip() == SECTION), None)
    if start is not None:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        before, after = lines[:start], lines[end:]
    else:
        title = 1 if lines and lines[0].startswith("# ") else 0
        before, after = lines[:title], lines[title:]
    parts = ["\n".join(before).rstrip("\n"), section.rstrip("\n"), "\n".join(after).strip("\n")]
    body = "\n\n".join(p for p in parts if p)
    return body + "\n" if body else ""
