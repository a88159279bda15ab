"""Owns the views under `memory/`: one derivation of what they show from the
pages' current facts, used by every write and by `maintain` and `doctor`.

`<info>` shows the views on every turn, so a view that kept a forgotten,
corrected or deleted fact would inject it for good. The views are therefore
never edited by the operation that changed a page; they are derived again
from the pages as the change leaves them (`after`: the new text of each page
the change writes, None for a page it takes away), and the result joins the
same journaled change, so a kill leaves pages and views agreeing:

- `recent.md`: the newest current facts, one bullet each, newest first by the
  fact's own date; words the person passed on keep their marker. Its rows are
  checked against their pages (a row whose fact is no longer current on its
  page goes), then the changed pages' current facts join them.
- `essentials.md`'s `## Now`: the newest current fact of each core slot on
  the person's own pages (`essentials.py`).
- The free text of `essentials.md` and `threads.md` (a person's notes, the
  LLM planner's rewrite): a line that quotes a fact the change took out of
  the current ones goes.

A hand edit of a view made meanwhile is kept: the steps are drift-aware.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from substrate.config import Settings
from substrate.consolidation.essentials import ESSENTIALS, MINE, SECTION, now_section
from substrate.errors import InvalidInputError, StaleWriteError
from substrate.pages import FactBullet, PageIndex, fact_bullets, fold, path_for_slug, voice_note
from substrate.safety import journal, linear, read_text_file, read_text_snapshot, write_atomic

RECENT = "recent.md"
THREADS = "threads.md"
RECENT_FACTS = 20
SCRUB_CHARS = 12  # a gone fact shorter than this is too common a phrase to cut lines by
RECENT_HEAD = "# Recent\n\nThe newest facts filed into pages.\n\n"
_LINE = linear(r"^- \[(\d{4}-\d{2}-\d{2})\] (.*) \(\[\[([^\]]+)\]\]\)$")

PageTexts = Mapping[str, str | None]  # slug -> the page's text after a change (None: gone)
Row = tuple[date, str, str]  # day, fact, slug


@dataclass(frozen=True)
class Pages:
    """The pages as a change leaves them: `after` over the files on disk."""

    settings: Settings
    present: Collection[str]  # every page's slug before the change
    after: PageTexts

    def text(self, slug: str) -> str | None:
        if slug in self.after:
            return self.after[slug]
        return _disk_text(self.settings, slug)

    def slugs(self) -> set[str]:
        present = {s for s, t in self.after.items() if t is not None}
        return (set(self.present) - set(self.after)) | present

    def current(self, slug: str) -> set[str]:
        text = self.text(slug)
        return {_shown(b) for b in fact_bullets(text) if b.current} if text else set()


def view_steps(
    settings: Settings, present: Collection[str], after: PageTexts
) -> list[journal.Step]:
    """The views' new contents once `after` is written, as journal steps (a view
    already right gives none). `present`: the pages' slugs before the change."""
    pages = Pages(settings, present, after)
    gone = _gone(settings, after)
    steps: list[journal.Step] = []
    # a change answers for the pages it writes: the rows of every other page
    # are as the last derivation (or maintain, after a hand edit) left them
    for name, derive in _derivations(pages, gone, changed=list(after), verify=set(after)):
        path = settings.workspace.view_path(name)
        text, snapshot = read_text_snapshot(path)
        new = derive(text)
        if new != text:
            steps.append(journal.Replace(path, new.encode("utf-8"), snapshot))
    return steps


def refresh_views(
    settings: Settings, index: PageIndex, changed: Iterable[str] = (), gone: Iterable[str] = ()
) -> list[str]:
    """Derive the views from the pages on disk now (`changed`: pages just written,
    whose current facts may belong in them; `gone`: fact texts just taken out
    of the current ones); the views rewritten. Drift-aware: a view edited
    meanwhile is left for the next refresh."""
    pages = Pages(settings, set(index.entries), {})
    written = []
    for name, derive in _derivations(pages, set(gone), changed=list(changed)):
        path = settings.workspace.view_path(name)
        text, snapshot = read_text_snapshot(path)
        new = derive(text)
        if new == text:
            continue
        try:
            write_atomic(path, new, expected=snapshot)
        except StaleWriteError:
            continue
        written.append(name)
    return written


def stale_views(settings: Settings, index: PageIndex) -> list[tuple[str, str]]:
    """(view, what is wrong) for each view that shows what the pages no longer
    hold as current (what `memory doctor` reports as `stale_view`)."""
    pages = Pages(settings, set(index.entries), {})
    problems = []
    for name, derive in _derivations(pages, set(), changed=[]):
        text = _view(settings, name)
        if derive(text) != text:
            problems.append((name, _what_differs(name)))
    return problems


def _what_differs(name: str) -> str:
    if name == RECENT:
        return "a row shows a fact its page no longer holds as current"
    return f"its {SECTION!r} section is not the pages' current core facts"


def _derivations(
    pages: Pages, gone: set[str], changed: list[str], verify: set[str] | None = None
) -> list[tuple[str, Callable[[str], str]]]:
    # `## Now` is read from the person's own pages: a change of none of them
    # leaves it as the last derivation did
    mine = verify is None or any(slug.startswith(MINE) for slug in changed)
    return [
        (RECENT, lambda text: _recent(pages, text, changed, verify)),
        (
            ESSENTIALS,
            lambda text: (
                now_section(_scrubbed(text, gone, SECTION), pages)
                if mine
                else _scrubbed(text, gone, SECTION)
            ),
        ),
        (THREADS, lambda text: _scrubbed(text, gone, None)),
    ]


def _recent(pages: Pages, text: str, changed: list[str], verify: set[str] | None = None) -> str:
    """The view's rows still current on their pages (`verify`: only the rows of
    these pages are checked; None: every row), with the changed pages' current
    facts, newest first; a view holding no row keeps its text."""
    present = pages.slugs()
    checked = {*_slugs(text), *changed} if verify is None else {*verify, *changed}
    current = {slug: pages.current(slug) for slug in checked if slug in present}
    rows: dict[str, Row] = {}
    for day, fact, slug in _rows(text):
        if (slug not in checked and slug in present) or fact in current.get(slug, ()):
            rows[fact] = (day, fact, slug)
    for slug in changed:
        page = pages.text(slug) if slug in present else None
        for bullet in fact_bullets(page or ""):
            fact = _shown(bullet)
            if bullet.current and fact not in rows:
                rows[fact] = (bullet.day, fact, slug)
    if not rows and not any(True for _ in _rows(text)):
        return text
    if not rows:
        return "# Recent\n"
    newest = sorted(rows.values(), key=lambda r: r[0], reverse=True)[:RECENT_FACTS]
    return (
        RECENT_HEAD + "\n".join(f"- [{d.isoformat()}] {f} ([[{s}]])" for d, f, s in newest) + "\n"
    )


def _shown(bullet: FactBullet) -> str:
    """A fact as the view shows it: words the person passed on keep their
    marker ("(Sam's words, passed on) …"), so `<info>` never shows them as the
    person's own."""
    return fold(voice_note(bullet) + bullet.text)


def _rows(text: str) -> Iterable[Row]:
    for line in text.split("\n"):
        match = _LINE.match(line)
        if match:
            try:
                day = date.fromisoformat(match.group(1))
            except ValueError:
                continue
            yield day, fold(match.group(2)), match.group(3)


def _slugs(text: str) -> set[str]:
    return {slug for _, _, slug in _rows(text)}


def _scrubbed(text: str, gone: set[str], keep_section: str | None) -> str:
    """`text` without the lines quoting a gone fact (outside `keep_section`,
    which is derived anyway)."""
    cuts = [g.casefold() for g in gone if len(g) >= SCRUB_CHARS]
    if not cuts or not text:
        return text
    lines = text.split("\n")
    inside = False
    kept = []
    for line in lines:
        if keep_section is not None and line.startswith("## "):
            inside = line.strip() == keep_section
        folded = fold(line).casefold()
        if not inside and any(cut in folded for cut in cuts):
            continue
        kept.append(line)
    return "\n".join(kept)


def _gone(settings: Settings, after: PageTexts) -> set[str]:
    """The facts current on the changed pages before the change and on none of
    them after it (a moved page's facts are not gone)."""
    before: set[str] = set()
    now: set[str] = set()
    for slug, text in after.items():
        before |= {
            fold(b.text) for b in fact_bullets(_disk_text(settings, slug) or "") if b.current
        }
        now |= {fold(b.text) for b in fact_bullets(text or "") if b.current}
    return before - now


def _disk_text(settings: Settings, slug: str) -> str | None:
    try:
        return _file_text(path_for_slug(settings.workspace.concepts_dir, slug))
    except InvalidInputError:  # a slug no page can have
        return None


def _view(settings: Settings, name: str) -> str:
    return _file_text(settings.workspace.view_path(name)) or ""


def pages_after(settings: Settings, steps: Iterable[journal.Step]) -> dict[str, str | None]:
    """What a change's steps do to the pages: each page it writes, moves in or
    restores with its new text, each it moves away, deletes or removes (a
    forget) as None."""
    concepts = settings.workspace.concepts_dir
    after: dict[str, str | None] = {}
    for step in steps:
        if isinstance(step, journal.Rename):
            source = _slug_of(concepts, step.source)
            target = _slug_of(concepts, step.target)
            if source is not None:
                after[source] = None
            if target is not None:
                after[target] = _file_text(step.source)
        elif isinstance(step, journal.Replace):
            slug = _slug_of(concepts, step.path)
            if slug is not None:
                after[slug] = step.data.decode("utf-8", errors="replace")
        elif isinstance(step, journal.Remove):
            slug = _slug_of(concepts, step.path)
            if slug is not None:
                after[slug] = None
    return after


def _slug_of(concepts: Path, path: Path) -> str | None:
    try:
        relative = path.relative_to(concepts)
    except ValueError:
        return None
    return relative.as_posix()[:-3] if relative.suffix == ".md" else None


def _file_text(path: Path) -> str | None:
    """The file's text; None when it is missing, unreadable or not UTF-8 (a view
    derives from what it can read)."""
    try:
        return read_text_file(path)
    except (OSError, UnicodeDecodeError, InvalidInputError):
        return None
