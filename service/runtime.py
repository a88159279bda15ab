"""What a running service holds: the one search index (the process owns the
embedded shard), the injector, the job queue and its worker.

Index writes (maintenance, re-embedding) run one at a time under a lock;
searches and cards do not wait for them. Ingest writes pages on the request
thread (under the consolidation lock, like the CLI) and hands re-embedding to
the worker as a job, waiting for it by default so new pages are searchable
when the call returns.

Two things would stall every request if they happened on one: the first
turn's loading (page index, entity matcher, model) and compacting the store,
which holds the GIL throughout. The first happens before the service
accepts requests (`start`); compaction waits until no search or card has
arrived for `OPTIMIZE_IDLE_S`, or shutdown.

Pages the service did not write (a hand edit, a copy into `memory/concepts/`,
a sync tool) are noticed by the worker while it is idle: every `WATCH_S` it
asks the live page index (new and renamed files show at once by their folder's
mtime, in-place edits within its full-rescan interval) and queues a maintain
when the collection no longer matches, so they become searchable within about
`WATCH_S` + the worker's poll (10 s), with no `memory maintain`.
"""

from __future__ import annotations

import gc
import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Callable

from injector import Injector
from service.graph_build import GraphBuild
from service.index_health import IndexHealth
from service.jobs import INDEX_LANE, LEARNING_LANE, JobQueue
from service.memory import Memory
from service.replays import replay_store
from service.served_jobs import MAINTAIN, ServedJobs
from service.worker import (
    POLL_S,
    ConsolidationPolicy,
    Scheduler,
    Worker,
)
from substrate import (
    Capability,
    MaintainReport,
    MemoryServiceError,
    PageIndex,
    SearchIndex,
    Settings,
    TransientError,
    memory_tier,
    open_search_index,
    read_buffer,
)
from substrate.config.tuning import resolve_qdrant_server
from substrate.index import Embedder
from substrate.index.qdrant_edge import check_free_space
from substrate.llm import ChatClient, open_chat_client
from substrate.sessions import NewMessage, SessionLog, open_session_log

log = logging.getLogger("memory.service")
OPTIMIZE_IDLE_S = 10.0
SETTLE_EVERY_S = 300.0
GC_YOUNG = 10_000
PAGE_REFRESH_S = 1.0
WATCH_S = 2.0
# How long a thread holding the interpreter lock keeps it when another asks.
# Python's 5 ms made every file call of a tending request (each one lets the
# lock go) wait up to 5 ms to get it back from the cards' threads: a forget of
# 0.7 ms alone took 505 ms beside three busy threads, 55 ms at 1 ms.
SWITCH_INTERVAL_S = 0.001


# Held while the heap is settled: between its unfreeze and its freeze nothing
# is frozen, and a reader of the frozen count waits for the settle to finish.
HEAP_LOCK = threading.Lock()


def settle_heap() -> None:
    """Collect, then freeze what is alive (`gc.freeze`): the warmed models, page
    index and caches are long-lived, and every full collection walked them all
    again. Under load a full collection came every two seconds and stopped
    every thread for 120-190 ms, most of them to find nothing; with the
    long-lived heap frozen they walk only what was made since. Frozen objects
    that become garbage are still freed by their reference counts; cycles
    among them wait for the next settle (`Runtime.idle`), which unfreezes
    first.

    The young generation is collected every `GC_YOUNG` allocations instead of
    700, so a full collection comes a fourteenth as often (32 clients, 30 s:
    5 pauses over 5 ms instead of 17; remember p99 149 -> 117 ms)."""
    with HEAP_LOCK:  # one settle at a time: the worker's idle and a caller's
        gc.set_threshold(GC_YOUNG, 10, 10)
        gc.unfreeze()
        gc.collect()
        gc.freeze()


class Runtime(ServedJobs):
    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        multilingual: Embedder | None = None,
        capabilities: Callable[[], list[Capability]] = list,
        poll_s: float = POLL_S,
        manage_heap: bool = False,
    ) -> None:
        """`manage_heap`: this process is the service, and its collector is
        tuned for it (`settle_heap`), not left as a test harness set it."""
        self.settings = settings
        self._manage_heap = manage_heap
        if manage_heap:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.tier = memory_tier(settings.config)
        if resolve_qdrant_server(settings.config) is None:
            check_free_space(settings.workspace.state_dir)  # the embedded store maps its files
        self.queue = JobQueue(settings.workspace.state_dir / "jobs.sqlite")
        self.memory = Memory(
            settings,
            capabilities,
            index=open_search_index(settings.indexed_corpus(), embedder, multilingual),
            sessions=open_session_log(settings.workspace),
            llm=open_chat_client(settings),
            page_refresh_s=PAGE_REFRESH_S,
            compact=False,
        )
        self.memory.jobs = self
        self.memory.follow_pages()
        self.memory.index.batch_queries()  # concurrent cards share query embeddings
        self.health = IndexHealth()
        self.replays = replay_store(settings.workspace.state_dir)  # `Idempotency-Key`
        self.memory.on_index_damaged = self.index_damaged
        self.memory.before_read = self.health.wait_for_boot
        self.memory.after_read = self.note_read
        self.memory.stop_check = self._unless_stopping
        self._settled = time.monotonic()
        self._logged: set[str] = set()  # what `_log_unseen` already said
        self._stopping = threading.Event()
        self._last_read = time.monotonic()
        self._next_watch = 0.0
        self._next_prune = 0.0
        self._next_sweep = 0.0
        self._next_retrospective = time.monotonic() + 3600  # not at every start
        self._watched: PageIndex | None = None
        tuning = settings.tuning
        self.scheduler = Scheduler(
            self.queue,
            ConsolidationPolicy(
                interval_s=tuning.consolidation_interval_hours * 3600,
                max_buffer_lines=tuning.consolidation_max_buffer_lines,
            ),
            lambda: read_buffer(settings),
        )
        self.memory.after_remember = self.scheduler.nudge
        handlers = self.handlers()
        # Index upkeep and model work in lanes of their own: a slow model answer
        # never holds up a hand-edited page becoming searchable.
        self.workers = [
            Worker(self.queue, handlers, self.scheduler, poll_s, idle=self.idle, lane=INDEX_LANE),
            Worker(self.queue, handlers, None, poll_s, lane=LEARNING_LANE),
        ]
        self.started_at = time.time()
        self.graph_build = GraphBuild(
            lambda: self.search, self.memory.index_writes_held, self._stopping
        )

    @property
    def search(self) -> SearchIndex:
        return self.memory.index

    @property
    def injector(self) -> Injector:
        return self.memory.injector

    @property
    def sessions(self) -> SessionLog:
        return self.memory.sessions

    @property
    def llm(self) -> ChatClient | None:
        return self.memory.llm

    def start(self) -> None:
        """Warm the turn path, then the boot maintenance: the concept-page index
        while the substrate is active, the knowledge base's on v1, none when off."""
        self.injector.warm()
        if self._manage_heap:
            settle_heap()
            self._settled = time.monotonic() - SETTLE_EVERY_S  # again after the boot maintain
        if self.tier != "off":
            self.queue.enqueue(MAINTAIN, {"reason": "startup"})
            if self._already_indexed():
                self.health.indexed()  # reads need not wait for the boot maintenance
            else:
                self.health.boot_queued()
        else:
            self.health.indexed()
        for worker in self.workers:
            worker.start()

    def _already_indexed(self) -> bool:
        """The index on disk already holds every page at its hash (a restart)."""
        try:
            return self.search.state_matches(self.injector.page_index())
        except (MemoryServiceError, OSError, ValueError):
            return False

    def stop_writes(self) -> None:
        """A running maintain stops at its next batch, and no new one starts:
        shutdown must not wait out a 10,000-page re-index."""
        self._stopping.set()

    def close(self) -> None:
        self.stop_writes()
        for worker in self.workers:
            worker.stop()
        self.graph_build.join()
        self.memory.compact(wait=False)  # a write still running at shutdown: compaction can wait
        self.memory.close()

    def log_after_card(self, session_id: str, text: str) -> None:
        """A card's `direct` turn, logged once the card was answered: a failure here
        (a full disk) is logged, the card having already gone out."""
        try:
            self.memory.log_turns(session_id, [NewMessage("user", text, True)])
        except (MemoryServiceError, OSError, sqlite3.Error) as exc:
            log.warning("the turn of %s was not logged: %s", session_id, exc)

    def note_read(self) -> None:
        """A search or card arrived: compaction waits for a quiet spell."""
        self._last_read = time.monotonic()

    def maintain(self, rebuild: bool = False) -> MaintainReport:
        return self.memory.maintain(rebuild)

    def idle(self) -> bool:
        """Between jobs: notice pages changed by others; compact once reads have
        paused. Returns whether compaction ran."""
        self.watch_pages()
        self.approximate_soon()
        self.prune_sessions()
        self.schedule_capture()
        self.schedule_purge()
        quiet = time.monotonic() - self._last_read >= OPTIMIZE_IDLE_S
        if self._manage_heap and quiet and time.monotonic() - self._settled >= SETTLE_EVERY_S:
            self._settled = time.monotonic()
            settle_heap()  # a full collection's pause, taken while nobody waits
        return quiet and self.memory.compact()

    @property
    def graph(self) -> str:
        """The index's approximate graph: none, building, ready, or failed: why."""
        return self.graph_build.state

    def approximate_soon(self) -> bool:
        """A big embedded index without its graph gets one (`graph_build`)."""
        return self.graph_build.soon()

    def prune_sessions(self) -> int:
        """Drop logged messages past `sessions_retention_days` (0 keeps them),
        at most once an hour; returns how many went."""
        days = self.settings.tuning.sessions_retention_days
        now = time.monotonic()
        if days <= 0 or now < self._next_prune:
            return 0
        self._next_prune = now + 3600
        return self.sessions.prune(time.time() - days * 86400)

    def watch_pages(self) -> bool:
        """Queue a maintain when the pages on disk differ from the collection;
        returns whether one was queued."""
        now = time.monotonic()
        if now < self._next_watch:
            return False
        self._next_watch = now + WATCH_S
        index = self.injector.page_index()
        if index is self._watched:
            return False
        self._watched = index
        if self.search.is_current(index) is not False:
            return False
        self.queue.enqueue(MAINTAIN, {"reason": "pages changed on disk"})
        return True

    def _unless_stopping(self, done: int, total: int) -> None:
        """A job stopped by shutdown is retried by the next start (a transient
        error), never marked failed for good."""
        if self._stopping.is_set():
            raise TransientError(
                f"the service is stopping: indexing stopped after {done} of {total} pages "
                "(the next maintain picks up from the pages' state)"
            )
