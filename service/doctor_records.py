"""`memory doctor`'s checks of the records that sit beside the person's files:
the profile's promotion records and curation candidates against USER.md and
MEMORY.md, and the links a page move left to rewrite.

A record that says a line is in the profile when the file no longer holds it
(the person took it out by hand, or a forget went through another path) is
marked forgotten: the records follow the file, never the other way, so the
repair writes only `promotions.json` and `memory-curation.json`, never a
profile file. A link to a page that a move renamed (a move killed before it
rewrote every link) is rewritten to the page's new slug.
"""

from __future__ import annotations

import time

from substrate import PageIndex, Settings
from substrate.consolidation.log import rows
from substrate.curation.store import CurationStore
from substrate.index.consistency import Problem
from substrate.pages.page_file import link_key
from substrate.profile import profile_lease, profile_path
from substrate.promotion import PromotionStore, file_for
from substrate.safety import read_text_file

FORGET_RECORD = "forget_record"
RELINK = "relink"


def record_problems(settings: Settings, index: PageIndex) -> list[Problem]:
    """`index`: the pages as the checkup read them (without rewriting the cache)."""
    return [
        *_promotion_problems(settings),
        *_candidate_problems(settings),
        *_moves(settings, index),
    ]


def _lines(settings: Settings, name: str) -> set[str]:
    text = read_text_file(profile_path(settings.workspace, name)) or ""
    return {" ".join(line.split()) for line in text.splitlines()}


def _promotion_problems(settings: Settings) -> list[Problem]:
    out = []
    for record in PromotionStore.load(settings.workspace).active():
        name = file_for(record.kind)
        if f"- {' '.join(record.content.split())}" not in _lines(settings, name):
            out.append(
                Problem(
                    "promotion_record",
                    f"promotion {record.id} ({record.content!r}) is active, but {name} no "
                    "longer holds its line",
                    "mark the record forgotten (the file is left as it is)",
                    FORGET_RECORD,
                    ("promotion", record.id),
                )
            )
    return out


def _candidate_problems(settings: Settings) -> list[Problem]:
    out = []
    for candidate in CurationStore.load(settings.workspace).candidates:
        op = candidate.operation
        if candidate.status != "applied" or op is None:
            continue
        if " ".join(op.line.split()) not in _lines(settings, op.file):
            out.append(
                Problem(
                    "curation_record",
                    f"curation candidate {candidate.id} is applied, but {op.file} no longer "
                    f"holds its line {op.line!r}",
                    "mark the candidate forgotten (the file is left as it is)",
                    FORGET_RECORD,
                    ("candidate", candidate.id),
                )
            )
    return out


def _moves(settings: Settings, index: PageIndex) -> list[Problem]:
    """Dangling links whose target a logged move renamed."""
    moved = {link_key(r["from"]): r["to"] for r in rows(settings) if r.get("op") == "move_page"}
    out = []
    for link in index.dangling_links:
        to = moved.get(link_key(link.target))
        while to is not None and link_key(to) in moved and to not in index.entries:
            to = moved[link_key(to)]  # moved again since
        if to is not None and to in index.entries:
            out.append(
                Problem(
                    "moved_link",
                    f"page {link.source} links to {link.target}, which was moved to {to}",
                    f"rewrite the link to [[{to}]]",
                    RELINK,
                    (link.target, to),
                )
            )
    return out


def repair_record(settings: Settings, problem: Problem) -> None:
    if problem.repair == RELINK:
        from ingest.page_ops import relink

        relink(settings, *problem.subject)
        return
    kind, ident = problem.subject
    with profile_lease(settings.workspace):
        if kind == "promotion":
            store = PromotionStore.load(settings.workspace)
            if store.by_id(ident).status == "active":
                store.forget(ident, time.time())
                store.flush()
        else:
            curation = CurationStore.load(settings.workspace)
            candidate = curation.get(ident)
            if candidate.status == "applied":
                candidate.status = "forgotten"
                curation.flush()
