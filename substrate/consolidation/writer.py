"""Applying a plan: fact bullets filed onto pages, what they replace marked, pages
written first.

The writer owns what no planner decides: the bullet (the entry's own date and
id, its text without the hint that named this page), exact duplicates (a fact
already on the page adds nothing), each fact's lifecycle on its page
(`lifecycle.decide`, or a planner's checked intent: a newer value supersedes
the current fact of its slot, a backdated one goes into the history) and
continuation pages: a page holding `consolidation_page_facts` facts takes no
more, and the next fact for it goes to `<page>/<YYYY-MM>` of the fact's month
(then `-2`, `-3`…), titled and linked to it, so a person's page does not grow
into one unreadable list. A fact that may replace the current fact of its slot
(a single-valued slot, or one whose old value it names) goes to the page of
that family holding it, full or not, so a value and what it replaced stay
together. Every page is written atomically and drift-aware
against the text read for the plan: a page changed by hand meanwhile is
refused, and the entries meant for it stay in the buffer for the next run. A
fact and the facts it replaces are on one page, so one page write carries
both: a kill at any moment leaves each fact in exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from substrate.config import Settings
from substrate.consolidation.ends import told_ends
from substrate.consolidation.lifecycle import (
    Decision,
    check_intent,
    decide,
    reading_of,
    weighs_against,
)
from substrate.consolidation.outcome import EntryOutcome
from substrate.consolidation.plan import Placement, Plan
from substrate.consolidation.when import with_dates
from substrate.lineage import encode_sources
from substrate.meaning.attribution import own_words
from substrate.meaning.reading import read_text, slot_reading
from substrate.meaning.slots import SlotReading
from substrate.pages import (
    FactBullet,
    PageIndex,
    fact_bullets,
    fold,
    new_page_text,
    path_for_slug,
    with_facts,
)
from substrate.pages.facts import SOURCES, voice_marks
from substrate.safety import (
    FileSnapshot,
    PlannedWrite,
    anchored,
    read_text_snapshot,
    write_many_atomic,
)

_MONTH = anchored(r"\d{4}-\d{2}(?:-\d+)?")
VET = "provider:vet"
MINE = "me/"
MONTHS = "January February March April May June July August September October November December"


@dataclass
class _Target:
    slug: str
    path: Path
    text: str  # the page as read ('' for a new page)
    snapshot: FileSnapshot
    title: str | None  # set for a page this run creates
    links: tuple[str, ...] = ()
    on_page: dict[str, FactBullet] = field(default_factory=dict)  # as read, by entry id
    facts: list[FactBullet] = field(default_factory=list)  # as they will be, page order
    keys: set[str] = field(default_factory=set)
    placements: list[Placement] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    aliases: tuple[str, ...] = ()
    rewrite: str | None = None

    @property
    def new(self) -> bool:
        return not self.snapshot.exists

    @property
    def count(self) -> int:
        return len(self.facts)

    def added(self) -> list[FactBullet]:
        return [b for b in self.facts if b.entry_id not in self.on_page]

    def changed(self) -> list[FactBullet]:
        return [
            b for b in self.facts if b.entry_id in self.on_page and b != self.on_page[b.entry_id]
        ]

    def touched(self) -> bool:
        return bool(self.added() or self.changed() or self.rewrite is not None or self._links())

    def _links(self) -> list[str]:
        return [s for s in self.related if f"[[{s}]]" not in self.text]

    def replace(self, bullet: FactBullet) -> None:
        self.facts = [bullet if b.entry_id == bullet.entry_id else b for b in self.facts]


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
        self._families: dict[str, list[str]] | None = None

    def apply(self, plan: Plan, *, dry_run: bool) -> Written:
        outcomes: dict[str, EntryOutcome] = {}
        for rewrite in plan.rewrites:
            target = self._target(rewrite.slug, None)
            if target.text == rewrite.base:
                target.rewrite = rewrite.text
            else:
                plan.fallbacks.append(
                    f"rewrite of {rewrite.slug} dropped: the page changed during the model call"
                )
        for p in plan.placements:
            outcomes[p.entry.id] = self._place(p)
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
        reading = p.reading or reading_of(p.entry.text)
        target = self._room_for(p, reading)
        target.placements.append(p)
        target.related += [s for s in p.related if s != target.slug and s not in target.related]
        words = own_words(p.entry.text)  # the person's own, without words passed on beside them
        text = with_dates(bullet_text(words, target.slug), p.entry.at.date())
        attrs = {SOURCES: encode_sources(p.entry.sources)} if p.entry.sources else {}
        said = read_text(p.entry.text).attribution
        attrs |= voice_marks(said.voice, said.speaker)
        slot = None if reading.cessation and reading.value is None else reading.slot
        bullet = FactBullet(p.entry.id, p.entry.at.date(), text, p.entry.source, attrs, slot=slot)
        if bullet.key in target.keys:
            return EntryOutcome(
                p.entry.id, "merged", target.slug, p.decided_by, "already on the page"
            )
        if p.merged:
            return EntryOutcome(p.entry.id, "merged", target.slug, p.decided_by, p.reason)
        decision = (
            None if p.intent is None else check_intent(p.intent, bullet, reading, target.facts)
        )
        if decision is None:
            decision = decide(bullet, reading, target.facts)
            if p.intent is not None:
                refused = f"the planner's {p.intent.action} named no current fact of {target.slug}"
                decision = replace(decision, reason=f"{refused}; {decision.reason}")
        if decision.action == "none":
            return self._outcome(p, target, "merged", decision, p.reason)
        self._apply(target, bullet, decision, reading)
        moved = "" if target.slug == p.slug else f" (continues {p.slug}, which is full)"
        if target.slug != p.slug and _base(target.slug) != _base(p.slug or ""):
            moved = f" (on {target.slug}, which holds the fact it weighs against)"
        return self._outcome(p, target, "filed", decision, p.reason + moved)

    def _apply(
        self, target: _Target, bullet: FactBullet, decision: Decision, reading: SlotReading
    ) -> None:
        by_id = {b.entry_id: b for b in target.facts}
        if decision.action == "history":
            newer = by_id[decision.targets[0]]
            bullet = bullet.superseded_by(newer)
        ended = (
            [by_id[i] for i in decision.targets] if decision.action in ("update", "retract") else []
        )
        for old in ended:
            if decision.action == "update":
                target.replace(old.superseded_by(bullet))
            else:
                target.replace(old.retracted(bullet.day, by=bullet.entry_id))
        target.keys.add(bullet.key)
        # the words that told the end stand as history beside what they ended (`ends`)
        now, end = told_ends(bullet, reading, ended) if ended else (bullet, None)
        target.facts += [b for b in (now, end) if b is not None]

    @staticmethod
    def _outcome(
        p: Placement, target: _Target, status: str, decision: Decision, reason: str
    ) -> EntryOutcome:
        history = decision.action == "history"
        return EntryOutcome(
            p.entry.id,
            "filed" if status == "filed" else "merged",
            target.slug,
            p.decided_by,
            reason,
            slot=decision.slot,
            lifecycle=decision.action,
            replaced=() if history else decision.targets,
            superseded_by=decision.targets[0] if history else None,
            lifecycle_reason=decision.reason,
            family=decision.family,
            candidates=decision.candidates,
            decision=decision.label,
        )

    def _room_for(self, p: Placement, reading: SlotReading) -> _Target:
        """`p`'s page; or the page of the same subject holding a current fact the
        new one weighs against (one of its slot family it may replace, or one
        naming what a cessation ends), so a fact and what it replaces are
        written together; or the continuation page of the fact's month once
        full."""
        target = self._target(p.slug or "", p.title, aliases=p.aliases)
        ids = p.intent.ids if p.intent is not None else ()
        if ids:
            holder = self._holder(target.slug, lambda b: b.entry_id in ids)
            if holder is not None:
                return holder
        weighs = weighs_against(reading, p.entry.at.date(), p.entry.text)
        if weighs is not None:
            holder = self._holder(target.slug, lambda b: b.current and weighs(b), p.nearby)
            holder = holder or self._ended_page(p.related, reading, weighs)
            if holder is not None:
                return holder
        if target.count < self._cap:
            return target
        year, month = p.entry.at.year, p.entry.at.month
        base = _base(target.slug)
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

    def _holder(
        self, slug: str, holds: Callable[[FactBullet], bool], nearby: tuple[str, ...] = ()
    ) -> _Target | None:
        """The page of the same subject as `slug` holding a fact that `holds`: the
        page and its continuation pages, then, for the person's own pages
        (`me/…`), every other one of them; then, whoever the statement is about,
        a fact of the person's (`_unnamed_own`) on the pages search found
        `nearby` ("Jordan moved out", filed under Jordan, ends "my partner is
        Jordan" on `me/family`)."""
        base = _base(slug)
        family = [base, *self._continuations().get(base, [])]
        family += [s for s in self._targets if _base(s) == base and s not in family]
        if base.startswith(MINE):
            mine = [*self._index.entries, *self._targets]
            family += sorted(s for s in set(mine) if s.startswith(MINE) and s not in family)
        for slug in family:
            if slug not in self._targets and slug not in self._index.entries:
                continue
            target = self._target(slug, None)
            if any(holds(b) for b in target.facts):
                return target
        for slug in nearby:
            if slug in family or slug not in self._index.entries:
                continue
            target = self._target(slug, None)  # a page of anyone's: the person's own facts only
            if any(holds(b) and (_unnamed_own(b.text) or _household(b)) for b in target.facts):
                return target
        return None

    def _ended_page(
        self, named: tuple[str, ...], reading: SlotReading, weighs: Callable[[FactBullet], bool]
    ) -> _Target | None:
        """The page of the one the statement says ended ("We said goodbye to
        Barney" ends what Barney's own page holds of him; "Tomasz and I broke
        up", the boyfriend on Tomasz's; "We lost Mochi. We brought home Pip",
        Mochi's): a page it names whose title is what ended, holding a current
        fact that names it."""
        if not reading.olds:
            return None
        for slug in named:
            title = self._title_of(slug) or ""
            if not any(_titled(title, old) for old in reading.olds):
                continue
            target = self._target(slug, None)
            if any(b.current and weighs(b) for b in target.facts):
                return target
        return None

    def _continuations(self) -> dict[str, list[str]]:
        """Each page's continuation pages in the index, read once per run."""
        if self._families is None:
            self._families = {}
            for slug in self._index.entries:
                base = _base(slug)
                if base != slug:
                    self._families.setdefault(base, []).append(slug)
        return self._families

    def _title_of(self, slug: str) -> str | None:
        entry = self._index.get(slug)
        if entry is not None:
            return entry.title
        target = self._targets.get(slug)
        return target.title if target else None

    def _target(
        self,
        slug: str,
        title: str | None,
        links: tuple[str, ...] = (),
        aliases: tuple[str, ...] = (),
    ) -> _Target:
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
            {b.entry_id: b for b in bullets if b.entry_id},
            list(bullets),
            {b.key for b in bullets},
            aliases=aliases,
        )
        self._targets[slug] = target
        return target

    def _writes(self) -> tuple[list[PlannedWrite], list[_Target]]:
        writes: list[PlannedWrite] = []
        targets: list[_Target] = []
        for target in self._targets.values():
            if not target.touched():
                continue
            related = [s for s in target.related if s in self._index.entries or s in self._targets]
            if target.new:
                origin = min((b.day for b in target.facts), default=None)
                text = new_page_text(
                    target.title or target.slug,
                    target.facts,
                    target.links,
                    origin,
                    aliases=target.aliases,
                    related=related,
                )
            else:
                base = target.rewrite or target.text
                text = with_facts(base, target.added(), target.changed(), related)
            if text == target.text:
                continue
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


def _unnamed_own(text: str) -> bool:
    """A fact the person may end: their own words about themselves or about no
    one named ("عربيتي هيونداي فيرنا" has no pronoun to say whose), never words
    passed on or a fact about someone named."""
    reading = read_text(text)
    return not reading.passed_on and reading.subject.kind != "named"


def _household(bullet: FactBullet) -> bool:
    """A provider the person keeps for their animals, on the page of the animal
    it names ("Biscuit goes to Pawsitive Vets"): only an animal has a vet, and
    the person's own new vet replaces it."""
    return (bullet.slot or slot_reading(bullet.text).slot) == VET


def _titled(title: str, name: str) -> bool:
    """A page titled by `name` (as values are compared, folded), its relation
    aside: "Tomasz (boyfriend)" is titled "tomasz"."""
    bare = title.split(" (", 1)[0]
    return bool(name) and fold(bare).casefold() == fold(name).casefold()


def _base(slug: str) -> str:
    """The page a continuation page continues (`people/sam/2024-05-2` -> `people/sam`)."""
    base, slash, last = slug.rpartition("/")
    return base if slash and base and _MONTH.fullmatch(last) else slug


def bullet_text(text: str, slug: str) -> str:
    """The fact as it goes on `slug`'s page: without the hint naming that page."""
    hint = f"[[{slug}]]"
    cleaned = text.replace(f" {hint}", "").replace(hint, "").rstrip()
    return cleaned or text
