"""`memory doctor`'s checks of what the person sees: the views `<info>` shows on
every turn, the pages that drop out of search because they do not parse, and
the facts held for review. Nothing here vanishes silently.

A stale view (one showing a fact its page no longer holds as current: a
kill between a change and its views, a hand edit of a page) is derived again
from the pages by `--fix`; the views are derived state even though they live
in `memory/`. A page that does not parse and a held fact are the person's to
decide: reported with the way to act, never repaired.
"""

from __future__ import annotations

from substrate import Settings
from substrate.consolidation.set_aside import RULE as SET_ASIDE, set_aside_reasons
from substrate.consolidation.views import refresh_views, stale_views
from substrate.index.consistency import Problem
from substrate.intake import held_entries
from substrate.pages import PageIndex
from substrate.safety import hold_lock

DERIVE = "derive_views"


def memory_problems(settings: Settings, index: PageIndex) -> list[Problem]:
    problems = [
        Problem(
            "stale_view",
            f"{settings.workspace.view_path(name)}: {what}",
            "derive it again from the pages",
            DERIVE,
            (name,),
        )
        for name, what in stale_views(settings, index)
    ]
    problems += [
        Problem(
            "page_parse",
            f"{f.path}: does not parse ({f.error}); it is left out of search and the card",
            "fix the page by hand (`memory validate` shows the error)",
            "report",
            (f.slug,),
        )
        for f in index.parse_failures
    ]
    held = held_entries(settings)
    reasons = set_aside_reasons(settings)
    problems += [
        Problem(
            "held_fact",
            f"buffer entry {e.id} is held for review (rule {e.held}): {_short(e.text)}",
            f"`memory release {e.id}` to file it, or `memory forget {e.id}`",
            "report",
            (e.id,),
        )
        for e in held
        if e.held != SET_ASIDE
    ]
    problems += [
        Problem(
            "set_aside_fact",
            f"buffer entry {e.id} could not be filed and was set aside so the rest were: "
            f"{reasons.get(e.id, {}).get('why', 'the reason was not kept')} ({_short(e.text)})",
            f"remember it again in words that can be filed (a shorter hint), then "
            f"`memory forget {e.id}`; or `memory release {e.id}` to try it again",
            "report",
            (e.id,),
        )
        for e in held
        if e.held == SET_ASIDE
    ]
    return problems


def derive_views(settings: Settings, index: PageIndex) -> None:
    """Every view derived again from every page (the full derivation)."""
    with hold_lock(settings.workspace.consolidation_lock_path, purpose="doctor"):
        refresh_views(settings, index, changed=sorted(index.entries))


def _short(text: str, chars: int = 80) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= chars else one_line[: chars - 1] + "…"
