"""Applying a plan: fact bullets appended to pages, pages written first.

The writer owns what no planner decides: the bullet (the entry's own date and
id, its text without the hint that named this page), exact duplicates (a fact
already on the page adds nothing), and continuation pages: a page holding
`consolidation_page_facts` facts takes no more, and the next fact for it goes
to `<page>/<YYYY-MM>` of the fact's month (then `-2`, `-3`…), titled and
linked to it, so a person's page does not grow into one unreadable list.
Every page is written atomically and drift-aware against the text read for
the plan: a page changed by hand meanwhile is refused, and the entries meant
for it stay in the buffer for the next run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from substrate.config import Settings
from substrate.consolidation.outcome import EntryOutcome
from substrate.consolidation.plan import Placement, Plan
from substrate.pages import (
    FactBullet,
    PageIndex,
    fact_bullets,
    new_page_text,
    path_for_slug,
    with_facts,
)
from substrate.safety import (
    FileSnapshot,
    PlannedWrite,
    anchored,
    read_text_snapshot,
    write_many_atomic,
)

_MONTH = anchored(r"\d{4}-\d{2}(?:-\d+)?")
MONTHS = "January February March April May June July August September October November December"


@dataclass
class _Target:
    slug: str
    path: Path
    text: str  # the page as read ('' for a new page)
    snapshot: FileSnapshot
    title: str | None  # set for a page this run creates
    links: tuple[str, ...] = ()
    keys: set[str] = field(default_factory=set)
    count: int = 0
    added: list[FactBullet] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    rewrite: str | None = None

    @property
    def new(self) -> bool:
        return not self.snapshot.exists


@dataclass
class Written:
    outcomes: list[EntryOutcome]
    created: list[str]
    updated: list[str]
    views: list[str]

    @property
    def consumed(self) -> set[str]:
        return {o.id for o in self.outcomes if not o.in_buffer}


class Writer:
    def __init__(self, settings: Settings, index: PageIndex) -> None:
        self._concepts = settings.workspace.concepts_dir
        self._memory = settings.workspace.memory_dir
        self._cap = settings.tuning.consolidation_page_facts
        self._index = index
        self._targets: dict[str, _Target] = {}

    def apply(self, plan: Plan, *, dry_run: bool) -> Written:
        outcomes: dict[str, EntryOutcome] = {}
        for p in plan.placements:
            outcomes[p.entry.id] = self._place(p)
        for rewrite in plan.rewrites:
            target = self._target(rewrite.slug, None)
            if target.text == rewrite.base:
                target.rewrite = rewrite.text
            else:
                plan.fallbacks.append(
                    f"rewrite of {rewrite.slug} dropped: the page changed during the model call"
                )
        writes, targets = self._writes()
        view_writes = self._view_writes(plan.views)
        if dry_run:
            return self._written(outcomes, targets, list(plan.views))
        errors = write_many_atomic([*writes, *(w for _, w in view_writes)])
        refused = [t for t, error in zip(targets, errors, strict=False) if error is not None]
        for target in refused:
            for p in target.placements:
                outcomes[p.entry.id] = EntryOutcome(
                    p.entry.id,
                    "skipped",
                    target.slug,
                    p.decided_by,
                    f"{target.slug} changed on disk during this run: kept in the buffer",
                    in_buffer=True,
                )
        views = [
            n for (n, _), e in zip(view_writes, errors[len(writes) :], strict=True) if e is None
        ]
        return self._written(outcomes, [t for t in targets if t not in refused], views)

    def _written(
        self, outcomes: dict[str, EntryOutcome], targets: list[_Target], views: list[str]
    ) -> Written:
        created = [t.slug for t in targets if t.new]
        updated = [t.slug for t in targets if not t.new]
        return Written(list(outcomes.values()), created, updated, views)

    def _place(self, p: Placement) -> EntryOutcome:
        if p.action == "skip" or p.slug is None:
            return EntryOutcome(p.entry.id, "skipped", None, p.decided_by, p.reason)
        target = self._room_for(p.slug, p.title, p.entry.at.year, p.entry.at.month)
        target.placements.append(p)
        text = bullet_text(p.entry.text, target.slug)
        bullet = FactBullet(p.entry.id, p.entry.at.date(), text, p.entry.source)
        if bullet.key in target.keys:
            return EntryOutcome(
                p.entry.id, "merged", target.slug, p.decided_by, "already on the page"
            )
        if p.merged:
            return EntryOutcome(p.entry.id, "merged", target.slug, p.decided_by, p.reason)
        target.keys.add(bullet.key)
        target.added.append(bullet)
        target.count += 1
        moved = "" if target.slug == p.slug else f" (continues {p.slug}, which is full)"
        return EntryOutcome(p.entry.id, "filed", target.slug, p.decided_by, p.reason + moved)

    def _room_for(self, slug: str, title: str | None, year: int, month: int) -> _Target:
        """`slug`'s page, or the continuation page of the fact's month once it is full."""
        target = self._target(slug, title)
        if target.count < self._cap:
            return target
        base = _base(slug)
        base_title = self._title_of(base) or base.rsplit("/", 1)[-1]
        stem = f"{base}/{year:04d}-{month:02d}"
        n = 1
        while True:
            name = stem if n == 1 else f"{stem}-{n}"
            label = f"{base_title}, {MONTHS.split()[month - 1]} {year}" + (
                "" if n == 1 else f" ({n})"
            )
            candidate = self._target(name, label, links=(base,))
            if candidate.count < self._cap:
                return candidate
            n += 1

    def _title_of(self, slug: str) -> str | None:
        entry = self._index.get(slug)
        if entry is not None:
            return entry.title
        target = self._targets.get(slug)
        return target.title if target else None

    def _target(self, slug: str, title: str | None, links: tuple[str, ...] = ()) -> _Target:
        found = self._targets.get(slug)
        if found is not None:
            return found
        path = path_for_slug(self._concepts, slug)
        text, snapshot = read_text_snapshot(path)
        bullets = fact_bullets(text)
        target = _Target(
            slug,
            path,
            text,
            snapshot,
            None if snapshot.exists else (title or slug.rsplit("/", 1)[-1]),
            links,
            {b.key for b in bullets},
            len(bullets),
        )
        self._targets[slug] = target
        return target

    def _writes(self) -> tuple[list[PlannedWrite], list[_Target]]:
        writes: list[PlannedWrite] = []
        targets: list[_Target] = []
        for target in self._targets.values():
            if not target.added and target.rewrite is None:
                continue
            if target.new:
                origin = target.added[0].day if target.added else None
                text = new_page_text(
                    target.title or target.slug, target.added, target.links, origin
                )
            else:
                text = with_facts(target.rewrite or target.text, target.added)
            writes.append(PlannedWrite(target.path, text.encode("utf-8"), target.snapshot))
            targets.append(target)
        return writes, targets

    def _view_writes(self, views: dict[str, str]) -> list[tuple[str, PlannedWrite]]:
        out = []
        for name, text in views.items():
            path = self._memory / name
            _, snapshot = read_text_snapshot(path)
            out.append((name, PlannedWrite(path, text.encode("utf-8"), snapshot)))
        return out


def _base(slug: str) -> str:
    """The page a continuation page continues (`people/sam/2024-05-2` -> `people/sam`)."""
    base, slash, last = slug.rpartition("/")
    return base if slash and base and _MONTH.fullmatch(last) else slug


def bullet_text(text: str, slug: str) -> str:
    """The fact as it goes on `slug`'s page: without the hint naming that page."""
    hint = f"[[{slug}]]"
    cleaned = text.replace(f" {hint}", "").replace(hint, "").rstrip()
    return cleaned or text
