"""What one workspace can do (`Memory`): every operation composed once.

Each surface reaches the workspace through one object. The CLI works on the
files in its own process (`cli.target`: this, or `Remote` for a running
service). The service's runtime holds one for its routes, its MCP mount and
its worker's jobs. An operation that is more than one library call is composed
here and nowhere else:

- `remember`: the scanner and the buffer write, then the `after_remember`
  hook (the service nudges its consolidation schedule);
- `consolidate`: dispatched on the tier (concept pages, or the knowledge base's
  notes on v1), each run followed by a re-index and a page refresh, so what was
  filed is searchable when it returns. A served workspace runs it on its
  worker (`jobs`), one at a time;
- `ingest`: the pages, then a re-index (always, so that a rerun after a
  failed index finds its pages);
- `maintain`: the index brought up to the pages, then the card's page view
  refreshed (`service.maintaining`);
- `search`, `card`: under the read slots (one per core: cards are CPU-bound,
  and writes queued behind thirty of them would starve);
- `explain`, `scan`, `log_turns`, `end_session`, `status`;
- tending (`service.tending`): `forget`, `correct`, `history` and the page edits.

Its parts open on first use, so a command pays only for what it touches:
`remember` opens no index and loads no model. A CLI `Memory` brings its index
up to the pages when it first opens it (it embeds only what changed); a served
one is handed the index and the conversation log the runtime opened.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from service.maintaining import Maintaining
from service.purging import Purging
from service.read_slots import ReadSlots
from service.reviewing import Reviewing
from service.tending import Tender, Tending
from substrate import (
    IndexDamagedError,
    MemoryServiceError,
    Settings,
    StoreUnavailableError,
    memory_tier,
    uses_concept_page_memory,
)

if TYPE_CHECKING:  # each part is imported where it is first used (a cold command's cost)
    from ingest import IngestOptions, IngestReport, Source
    from injector import Injector
    from substrate import BufferEntry, Capability, MaintainReport, SearchIndex
    from substrate.llm import ChatClient
    from substrate.promotion import PromotionOutcome
    from substrate.safety import Verdict
    from substrate.sessions import NewMessage, SessionLog

Capabilities = Callable[[], list["Capability"]]
ProgressFn = Callable[[int, int], None]
Progress = Callable[[str], AbstractContextManager[ProgressFn]]

NOTHING_FILED = "the buffer holds nothing to file"


@contextlib.contextmanager
def no_progress(label: str) -> Iterator[ProgressFn]:
    yield lambda done, total: None


class Jobs(Protocol):
    """Where a served workspace runs consolidation: the service's worker."""

    def consolidate(self, limit: int | None) -> dict[str, Any]:
        """File the buffer on the worker and wait; the outcome (raises when it failed)."""
        ...

    def finalize_soon(self) -> None:
        """A session ended: its finalization is queued."""
        ...

    def episodes_soon(self) -> None:
        """Turns were logged: their episodes are indexed on the worker, off the
        card's path (one queued maintain serves every batch logged meanwhile)."""
        ...

    def purge_soon(self) -> None:
        """Whole sessions were forgotten: a purge is queued (coalesced, lowest
        priority), so no byte of them stays in the derived stores."""
        ...

    def reindex_soon(self) -> None:
        """Tending changed pages or the log: the re-embedding is queued on the
        worker (one queued maintain serves every change made meanwhile)."""
        ...


class Target(Tender, Protocol):
    """What a command runs against: `Memory` in this process, or a running service
    (`cli.target.Remote`), which answers each call as `Memory` would."""

    def remember(
        self, text: str, hints: Sequence[str] = (), at: datetime | None = None
    ) -> BufferEntry: ...

    def consolidate(self, dry_run: bool = False, limit: int | None = None) -> dict[str, Any]: ...

    def explain(self, entry_id: str) -> dict[str, Any]: ...

    def maintain(self, rebuild: bool = False) -> MaintainReport: ...

    def search(
        self, query: str, k: int = 10, capabilities: bool = False, kind: str = "all"
    ) -> list[dict[str, Any]]: ...

    def card(
        self, message: str, conversation_id: str | None = None, voice: bool = False
    ) -> dict[str, Any]: ...

    def ingest(self, source: Source, options: IngestOptions) -> Ingested: ...

    def purge(self, trash: bool = False) -> dict[str, Any]: ...

    def lineage(self, what: str) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Ingested:
    """An ingest's report, and what indexing made of it: the maintain report, or
    why indexing failed (the pages stay written; a rerun indexes them)."""

    report: IngestReport
    indexed: MaintainReport | None = None
    index_error: str | None = None


class Memory(Maintaining, Tending, Reviewing, Purging):
    def __init__(
        self,
        settings: Settings,
        capabilities: Capabilities = list,
        *,
        index: SearchIndex | None = None,
        sessions: SessionLog | None = None,
        llm: ChatClient | None = None,
        page_refresh_s: float = 0.0,
        compact: bool = True,
        progress: Progress = no_progress,
    ) -> None:
        """`index`, `sessions`, `llm`: parts opened by the caller (the runtime); the
        rest open on first use. `compact=False` leaves compacting the store after
        a write to the caller (`needs_compaction`): it holds the GIL throughout.
        Capabilities are seeded only where the concept-page substrate is active
        (on v1 the index is the knowledge base's)."""
        self.settings = settings
        self.tier = memory_tier(settings.config)
        substrate = uses_concept_page_memory(settings.config)
        self.capabilities: Capabilities = capabilities if substrate else list
        self._index = index
        self._maintain_on_open = index is None
        self._sessions = sessions
        self._read_log: SessionLog | None = None
        self._llm = llm
        self._llm_opened = llm is not None
        self._page_refresh_s = page_refresh_s
        self._compact = compact
        self.progress = progress
        self._injector: Injector | None = None
        self._indexless: Injector | None = None
        self._opening = threading.Lock()
        self._index_lock = threading.Lock()
        # Writes counted as they finish, and the count a finished maintain covers:
        # concurrent tending shares one maintain instead of queueing one each.
        self._writes_lock = threading.Lock()
        self._writes_done = 0
        self._maintained_through = 0
        self._written_pages: set[str] = set()
        self._written_anything = False
        self._catch_up = threading.Lock()
        self._reads = ReadSlots()
        from substrate.sessions.episodes import LoggedEpisodes

        self._episodes = LoggedEpisodes()
        self.needs_compaction = False
        self.jobs: Jobs | None = None
        self.after_remember: Callable[[], object] | None = None
        self.after_read: Callable[[], object] | None = None
        self.stop_check: ProgressFn | None = None
        # A served workspace's: the index met a store error (a rebuild heals it),
        # and a read's wait for the boot maintenance.
        self.on_index_damaged: Callable[[IndexDamagedError], object] | None = None
        self.before_read: Callable[[], object] | None = None

    # -- parts, opened on first use ----------------------------------------------------

    @property
    def index(self) -> SearchIndex:
        with self._opening:
            if self._index is None:
                from substrate import open_search_index

                self._index = open_search_index(self.settings.indexed_corpus())
        if self._maintain_on_open:
            self._maintain_on_open = False
            self.maintain()
        return self._index

    @property
    def sessions(self) -> SessionLog:
        """The conversation log, for writing."""
        with self._opening:
            if self._sessions is None:
                from substrate.sessions import open_session_log

                self._sessions = open_session_log(self.settings.workspace)
            return self._sessions

    def _reading_log(self) -> SessionLog:
        """The log for a card's recall: the writable one when open, else read-only
        (a card from the CLI must work on a workspace it cannot write)."""
        with self._opening:
            if self._sessions is not None:
                return self._sessions
            if self._read_log is None:
                from substrate.sessions import open_session_log

                self._read_log = open_session_log(self.settings.workspace, read_only=True)
            return self._read_log

    @property
    def llm(self) -> ChatClient | None:
        with self._opening:
            if not self._llm_opened:
                from substrate.llm import open_chat_client

                self._llm, self._llm_opened = open_chat_client(self.settings), True
            return self._llm

    @property
    def injector(self) -> Injector:
        """The turn path over the index and the log (its recall block)."""
        index = self.index
        log = self._reading_log()
        with self._opening:
            if self._injector is None:
                from injector import Injector

                self._injector = Injector(
                    self.settings, index, page_refresh_s=self._page_refresh_s, sessions=log
                )
            return self._injector

    def _card_injector(self, voice: bool) -> Injector:
        """The voice front door reads no index: a CLI voice card opens none. A store
        that cannot open (a full disk: loading replays its log into mapped files)
        still gets a card, from the lanes that need no search."""
        if not voice or self._index is not None:
            try:
                return self.injector
            except StoreUnavailableError:
                if voice or self._index is not None:
                    raise
        return self._indexless_injector()

    def _indexless_injector(self) -> Injector:
        log = self._reading_log()
        with self._opening:
            if self._indexless is None:
                from injector import Injector

                self._indexless = Injector(self.settings, None, sessions=log)
            return self._indexless

    # -- the fact path ------------------------------------------------------------------

    def remember(
        self, text: str, hints: Sequence[str] = (), at: datetime | None = None
    ) -> BufferEntry:
        from substrate import remember

        entry = remember(self.settings, text, list(hints), now=at)
        if self.after_remember is not None:
            self.after_remember()
        return entry

    def consolidate(self, dry_run: bool = False, limit: int | None = None) -> dict[str, Any]:
        """File the buffer (bounded runs, each followed by a re-index); a dry run
        plans one batch. A served workspace files on its worker."""
        if not dry_run and self.jobs is not None:
            return self.jobs.consolidate(limit)
        out = self.file_buffer(dry_run, limit)
        out.pop("nothing_filed", None)
        return out

    def file_buffer(self, dry_run: bool = False, limit: int | None = None) -> dict[str, Any]:
        """The filing itself, here: the one place writes dispatch on the tier."""
        from substrate.consolidation import consolidate, consolidate_all, file_into_pkb

        if self.tier == "v1":
            filed = file_into_pkb(self.settings, dry_run=dry_run)
            if filed.filed and not dry_run:
                self.maintain()
            out = filed.as_json()
            nothing = not (filed.filed or filed.earlier or filed.skipped)
        else:
            index, client = self.index, self.llm
            if dry_run:
                run = consolidate(
                    self.settings, dry_run=True, limit=limit, search=index, client=client
                )
            else:
                run = consolidate_all(
                    self.settings,
                    limit=limit,
                    search=index,
                    client=client,
                    after_run=lambda _: self.maintain(),
                )
            out, nothing = run.as_json(), not run.entries
        if nothing:
            out["nothing_filed"] = NOTHING_FILED
        return out

    def explain(self, entry_id: str) -> dict[str, Any]:
        """Where a buffer entry went and why."""
        from substrate.consolidation import explain

        return explain(self.settings, entry_id)

    def facts(self, slug: str, include_all: bool = False) -> dict[str, Any]:
        """A page's facts and whether each is still true."""
        from substrate.consolidation import page_facts

        return page_facts(self.settings, slug, include_all)

    def ingest(self, source: Source, options: IngestOptions, *, reindex: bool = True) -> Ingested:
        """Pages first, then indexing, always (not only when pages were written): a
        run whose indexing failed wrote its pages, and its rerun finds them
        `unchanged` but still unindexed. An indexing failure is reported beside
        the report, never instead of it. `reindex=False`: the caller queues it."""
        from ingest import run as run_ingest

        with self.progress("ingesting pages") as bar:
            report = run_ingest(self.settings, source, options, progress=bar)
        if options.dry_run or not reindex:
            return Ingested(report)
        try:
            return Ingested(report, self.maintain())
        except MemoryServiceError as exc:
            return Ingested(report, index_error=exc.message)
        except OSError as exc:
            return Ingested(report, index_error=f"{exc.strerror or exc}")

    # -- the read path ------------------------------------------------------------------

    def search(
        self, query: str, k: int = 10, capabilities: bool = False, kind: str = "all"
    ) -> list[dict[str, Any]]:
        """Pages and episodes (`kind`: page, episode or all)."""
        index = self.index
        self._note_read()
        try:
            with self._reads.held():
                hits = index.search(query, k, include_capabilities=capabilities, kind=kind)
        except IndexDamagedError as exc:
            self._damaged(exc)
            raise
        return [h.as_json() for h in hits]

    def card(
        self, message: str, conversation_id: str | None = None, voice: bool = False
    ) -> dict[str, Any]:
        """One turn's blocks, exactly as prompt assembly gets them."""
        injector = self._card_injector(voice)
        self._note_read()
        try:
            with self._reads.held():
                card = injector.assemble(message, conversation_id, voice_front_door=voice)
        except IndexDamagedError as exc:
            self._damaged(exc)  # the card from the lanes that need no search, meanwhile
            with self._reads.held():
                card = self._indexless_injector().assemble(
                    message, conversation_id, voice_front_door=voice
                )
        return card.as_json()

    def _note_read(self) -> None:
        if self.before_read is not None:
            self.before_read()
        if self.after_read is not None:
            self.after_read()

    def _damaged(self, exc: IndexDamagedError) -> None:
        if self.on_index_damaged is not None:
            self.on_index_damaged(exc)

    def scan(self, text: str, source: str = "user") -> Verdict:
        """The scanner's verdict, writing nothing."""
        return self.settings.scanner.check(text, source)

    # -- conversations and the profile ---------------------------------------------------

    def log_turns(
        self,
        session_id: str,
        messages: list[NewMessage],
        parent_id: str | None = None,
        now: float | None = None,
    ) -> tuple[list[int], list[PromotionOutcome]]:
        """Store a batch of turns, then promote what each direct user turn states
        again (after it is stored: the turn is part of its own session)."""
        from substrate.promotion import record_turns

        at = time.time() if now is None else now
        done = record_turns(self.settings, self.sessions, session_id, messages, at, parent_id)
        if self.jobs is not None:
            self.jobs.episodes_soon()
        return done

    def end_session(self, session_id: str, reason: str) -> dict[str, Any]:
        """End a session; its finalization is recorded with the ending and, on a
        served workspace, queued on the worker."""
        row = self.sessions.end(session_id, reason, time.time())
        if self.jobs is not None:
            self.jobs.finalize_soon()
        return row.as_json()

    def close(self) -> None:
        for injector in (self._injector, self._indexless):
            if injector is not None:
                injector.close()
        for log in (self._sessions, self._read_log):
            if log is not None:
                log.close()
        if self._llm is not None:
            self._llm.close()
        if self._index is not None:
            self._index.store.close()
