"""`consolidate`: one bounded run, the one entry point every surface calls.

Order, and why nothing is lost or filed twice whatever is killed when:
1. under the consolidation lock (ingest takes it too), read the buffer and
   the PageIndex; an entry whose id a page already carries was filed by a run
   that stopped before trimming, and only leaves the buffer now;
2. take entries in order up to `consolidation_batch_entries` (by entry, never
   by minute: a burst stamped in one minute is still cut into bounded runs),
   drop what the filters refuse, plan the rest, validate, write the pages;
3. then trim what was filed or skipped from the buffer, under the buffer
   lock and against the buffer as it is then (a fact remembered meanwhile
   stays); entries whose page was edited by hand meanwhile stay as well;
4. then the views, derived again from the pages just written (`views`).
A crash between 2 and 3 leaves filed entries in the buffer too; step 1 of the
next run sees their ids on the pages and trims them without filing again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from substrate.config import Settings, is_memory_enabled, uses_concept_page_memory
from substrate.consolidation.deterministic import (
    Batch,
    DeterministicFiler,
    fact_text,
    search_query,
)
from substrate.consolidation.filters import screen
from substrate.consolidation.llm_planner import VIEWS, LlmPlanner
from substrate.consolidation.log import moved_pages, record
from substrate.consolidation.outcome import ConsolidationOutcome, EntryOutcome
from substrate.consolidation.plan import Plan
from substrate.consolidation.set_aside import facts_fault, file_one_at_a_time
from substrate.consolidation.views import refresh_views
from substrate.consolidation.writer import Writer
from substrate.errors import ConfigError, InvalidInputError, MemoryDisabledError
from substrate.index import SearchIndex, matcher_for
from substrate.intake import BufferEntry, hold_entries, read_buffer, trim_buffer
from substrate.llm import ChatClient
from substrate.pages import PageIndex, fresh_index
from substrate.safety import hold_lock, read_text_file

LOCK_TIMEOUT_S = 60.0
VIEW_BYTES = 1024 * 1024  # a view the planner is shown (it sees 16 KiB of it)
EARLIER = "filed by an earlier run that stopped before trimming the buffer"


def consolidate(
    settings: Settings,
    *,
    dry_run: bool = False,
    limit: int | None = None,
    search: SearchIndex | None = None,
    client: ChatClient | None = None,
    clock: Callable[[], float] = time.time,
) -> ConsolidationOutcome:
    """File the first batch of buffer entries into pages (see the module doc).
    `search` lets the filer's search step run; `client` is the LLM, when one is
    configured. A dry run plans and reports, and writes nothing."""
    if not is_memory_enabled(settings.config):
        raise MemoryDisabledError("memory is disabled (memory.enabled = false); nothing to file")
    if not uses_concept_page_memory(settings.config):
        raise MemoryDisabledError(
            "this workspace runs tier v1 (the knowledge base in memory/pkb/): concept-page "
            "consolidation needs tier v2 or v3; `memory consolidate` files into the "
            "knowledge base instead"
        )
    planner = _planner(settings, search, client)
    started = time.perf_counter()
    ws = settings.workspace
    if search is not None:  # embedded before the lock: a forget never waits on a model
        search.prefetch(_queries(settings, read_buffer(settings), limit))
    with hold_lock(ws.consolidation_lock_path, timeout_s=LOCK_TIMEOUT_S, purpose="consolidation"):
        entries = read_buffer(settings)
        index = fresh_index(ws)
        earlier, skipped, batch, marks = _split(settings, entries, index, limit)
        plan = planner.plan(_batch(settings, batch, index)) if batch else Plan([])
        written = Writer(settings, index).apply(plan, dry_run=dry_run)
        order = {e.id: i for i, e in enumerate(entries)}
        decided = sorted([*earlier, *skipped, *written.outcomes], key=lambda e: order[e.id])
        outcome = ConsolidationOutcome(
            dry_run=dry_run,
            planner=plan.planner,
            entries=decided,
            pages_created=written.created,
            pages_updated=written.updated,
            views_written=written.views,
            fallbacks=plan.fallbacks,
            tokens=plan.usage,
            model_seconds=plan.model_seconds,
            runs=1,
        )
        after = fresh_index(ws) if written.created or written.updated else index
        if not dry_run:
            _commit(settings, outcome, marks, clock(), after)
        outcome.dangling_links = len(after.dangling_links)
    outcome.remaining = len(read_buffer(settings))
    outcome.seconds = time.perf_counter() - started
    if search is not None:
        search.prefetch([])
    return outcome


PREFETCHED = 256  # the entries of a run whose searches are embedded before the lock


def _queries(settings: Settings, entries: list[BufferEntry], limit: int | None) -> list[str]:
    """The searches filing will make for the next run's entries (their fact texts)."""
    most = min(limit or PREFETCHED, PREFETCHED)
    bound = settings.limits.query_bytes
    return [search_query(fact_text(e), bound) for e in entries[:most] if not e.held]


def consolidate_all(
    settings: Settings,
    *,
    limit: int | None = None,
    search: SearchIndex | None = None,
    client: ChatClient | None = None,
    after_run: Callable[[ConsolidationOutcome], object] | None = None,
) -> ConsolidationOutcome:
    """Bounded runs until the buffer holds nothing more to file (or `limit`
    entries were taken); `after_run` follows each run that wrote pages (the
    re-index, so the next run's search step sees them)."""
    total = ConsolidationOutcome()
    while True:
        left = None if limit is None else limit - total.consumed
        if left is not None and left <= 0:
            break
        try:
            run = consolidate(settings, limit=left, search=search, client=client)
        except Exception as exc:
            if not facts_fault(exc):
                raise
            run = file_one_at_a_time(
                settings,
                left,
                lambda: consolidate(settings, limit=1, search=search, client=client),
            )
        total.merge(run)
        if (run.pages_created or run.pages_updated) and after_run is not None:
            after_run(run)
        if run.consumed == 0 or run.remaining == 0:
            break
    return total


def _planner(
    settings: Settings, search: SearchIndex | None, client: ChatClient | None
) -> DeterministicFiler | LlmPlanner:
    filer = DeterministicFiler(settings, search)
    choice = settings.tuning.consolidation_planner
    if choice == "deterministic" or (choice == "auto" and client is None):
        return filer
    if client is None:
        raise ConfigError(
            'consolidation_planner = "llm" but no model is configured ([memory.substrate.llm])'
        )
    return LlmPlanner(settings, client, filer)


def _split(
    settings: Settings, entries: list[BufferEntry], index: PageIndex, limit: int | None
) -> tuple[list[EntryOutcome], list[EntryOutcome], list[BufferEntry], dict[str, str]]:
    """(already filed or held, skipped by a filter, the batch to plan), in buffer
    order, and the rules of the entries this screening newly held."""
    size = settings.tuning.consolidation_batch_entries
    if limit is not None:
        size = min(size, limit)
    filed_on = {eid: slug for slug, e in index.entries.items() for eid in e.filed}
    earlier: list[EntryOutcome] = []
    skipped: list[EntryOutcome] = []
    batch: list[BufferEntry] = []
    marks: dict[str, str] = {}
    for entry in entries:
        if len(skipped) + len(batch) >= size:
            break
        if entry.id in filed_on:
            earlier.append(EntryOutcome(entry.id, "filed", filed_on[entry.id], None, EARLIER))
            continue
        screened = screen(entry, settings.scanner)
        if screened is None:
            batch.append(entry)
        elif screened.action == "hold":  # stays in the buffer, not counted against the batch
            earlier.append(
                EntryOutcome(entry.id, "held", None, screened.rule, screened.reason, True)
            )
            if screened.new and screened.rule:
                marks[entry.id] = screened.rule
        else:
            skipped.append(EntryOutcome(entry.id, "skipped", None, None, screened.reason))
    return earlier, skipped, batch, marks


def _batch(settings: Settings, entries: list[BufferEntry], index: PageIndex) -> Batch:
    views = {}
    for name in VIEWS:
        try:
            views[name] = read_text_file(settings.workspace.view_path(name), VIEW_BYTES) or ""
        except (OSError, UnicodeDecodeError, InvalidInputError):
            views[name] = ""
    repairs = [f"page {f.path} does not parse: {f.error}" for f in index.parse_failures]
    repairs += [
        f"page {d.source} links to missing page {d.target} (via {d.via})"
        for d in index.dangling_links
    ]
    return Batch(entries, index, matcher_for(index), views, repairs[:50], moved_pages(settings))


def _commit(
    settings: Settings,
    outcome: ConsolidationOutcome,
    marks: dict[str, str],
    at: float,
    after: PageIndex,
) -> None:
    """Mark what is newly held (`marks`: id -> rule), trim what left the buffer,
    then the views and the decision log (with each written page's hash, from
    `after`, the pages as this run left them)."""
    hold_entries(settings, marks)
    trim_buffer(settings, {e.id for e in outcome.entries if not e.in_buffer})
    written = {*outcome.pages_created, *outcome.pages_updated}
    if written:
        outcome.views_written += [
            v
            for v in refresh_views(settings, after, changed=sorted(written))
            if v not in outcome.views_written
        ]
    hashes = {s: after.entries[s].content_hash for s in written if s in after.entries}
    record(settings, at, outcome.planner, outcome.entries, hashes)
