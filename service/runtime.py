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
from typing import Any

from injector import Injector
from service.graph_build import GraphBuild
from service.index_health import DEGRADED, IndexHealth
from service.jobs import INDEX_LANE, LEARNING_LANE, JobQueue, Queued
from service.memory import NOTHING_FILED, Memory
from service.replays import replay_store
from service.worker import (
    CAPTURE,
    CONSOLIDATE,
    FINALIZE,
    NOTHING_TO_DO,
    POLL_S,
    ConsolidationPolicy,
    Handler,
    Scheduler,
    Worker,
)
from substrate import (
    Capability,
    IndexDamagedError,
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
from substrate.curation import capture, run_finalizations
from substrate.index import Embedder
from substrate.index.qdrant_edge import check_free_space
from substrate.llm import ChatClient, open_chat_client
from substrate.sessions import NewMessage, SessionLog, open_session_log

log = logging.getLogger("memory.service")
REEMBED = "memory_v2_reembed"
MAINTAIN = "memory_v3_maintain"
PURGE = "memory_purge"
HEAL = "heal a damaged index"
PURGE_DUE = "purge_last_due"
PURGE_DELAY_S = 30.0  # forgets in a row share one purge
OPTIMIZE_IDLE_S = 10.0
SETTLE_EVERY_S = 300.0
GC_YOUNG = 10_000
CONSOLIDATE_WAIT_S = 600.0
PAGE_REFRESH_S = 1.0
WATCH_S = 2.0
# How long a thread holding the interpreter lock keeps it when another asks.
# Python's 5 ms made every file call of a tending request (each one lets the
# lock go) wait up to 5 ms to get it back from the cards' threads: a forget of
# 0.7 ms alone took 505 ms beside three busy threads, 55 ms at 1 ms.
SWITCH_INTERVAL_S = 0.001


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
    gc.set_threshold(GC_YOUNG, 10, 10)
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class Runtime:
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
        handlers: dict[str, Handler] = {
            REEMBED: self._reembed,
            MAINTAIN: self._maintain_job,
            CONSOLIDATE: self._consolidate,
            FINALIZE: self._finalize,
            CAPTURE: self._capture,
            PURGE: self._purge,
        }
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

    def schedule_capture(self, now: float | None = None) -> list[str]:
        """Queue the sweep (when enabled, every minute: it picks the quiet
        conversations itself) and the retrospective (every `retrospective_hours`;
        only with a model: without one, each session's finalization captures it).
        The sweep runs without a model too (the offline extractor). Returns the
        triggers queued."""
        at = time.monotonic() if now is None else now
        tuning = self.settings.tuning
        queued = []
        if tuning.sweep_enabled and at >= self._next_sweep:
            self._next_sweep = at + 60
            queued.append("sweep")
        hours = tuning.retrospective_hours
        if self.llm is not None and hours > 0 and at >= self._next_retrospective:
            self._next_retrospective = at + hours * 3600
            queued.append("retrospective")
        for trigger in queued:
            self.queue.enqueue(CAPTURE, {"trigger": trigger})
        return queued

    def schedule_purge(self, now: float | None = None) -> bool:
        """Queue a purge every `purge_interval_hours` (0: never), counted from the
        last one queued (kept in the queue, so a restart does not reset it)."""
        hours = self.settings.tuning.purge_interval_hours
        at = time.time() if now is None else now
        last = self.queue.mark(PURGE_DUE)
        if last is None:
            self.queue.set_mark(PURGE_DUE, at)
            return False
        if hours <= 0 or at - last < hours * 3600:
            return False
        self.queue.set_mark(PURGE_DUE, at)
        self.queue.enqueue(PURGE, {"reason": "schedule"})
        return True

    def purge_soon(self) -> None:
        """A forget took whole sessions: a purge shortly (coalesced with any
        already queued; the lowest priority of its lane)."""
        self.queue.enqueue(PURGE, {"reason": "a session was forgotten"}, delay_s=PURGE_DELAY_S)

    def reindex_soon(self) -> None:
        """A tending change: its re-embedding on the index lane (coalesced with a
        queued one)."""
        self.queue.enqueue(MAINTAIN, {"reason": "tending"})

    def _purge(self, payload: dict[str, Any]) -> dict[str, Any]:
        done = self.memory.purge(trash=bool(payload.get("trash")))
        return {"reason": payload.get("reason", "queued"), **done}

    def _capture(self, payload: dict[str, Any]) -> dict[str, Any]:
        trigger = str(payload.get("trigger", "retrospective"))
        ran = capture(self.settings, self.sessions, self.llm, trigger)
        detail: dict[str, Any] = {"trigger": trigger, "sessions": ran}
        if not ran:
            detail[NOTHING_TO_DO] = "no conversation has unread messages"
        return detail

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

    def wait_for(self, queued: Queued, timeout_s: float) -> dict[str, Any] | None:
        """The job's row once its next attempt ended: done, failed, or queued again
        for a retry after an error (`last_error` says which; a caller waiting
        on a run is answered with its error, not kept waiting out the retries);
        None at the timeout."""
        deadline = time.monotonic() + timeout_s
        first = self.queue.job(queued.id)
        tried = int(first["attempts"]) if first is not None else 0
        while time.monotonic() < deadline:
            job = self.queue.job(queued.id)
            if job is not None and job["state"] in ("done", "failed"):
                return job
            if job is not None and job["state"] == "queued" and int(job["attempts"]) > tried:
                return job  # the attempt failed; it is retried later
            trouble = next((w.failing.why for w in self.workers if w.failing.why), None)
            if job is not None and trouble is not None:  # no attempt can start (a full disk)
                return {**job, "last_error": trouble}
            time.sleep(0.2)
        return None

    def last_result(self, job_id: int) -> dict[str, Any] | None:
        for run in self.queue.history(limit=50):
            if run["job_id"] == job_id:
                return run
        return None

    def _reembed(self, payload: dict[str, Any]) -> dict[str, Any]:
        return self.maintain().as_json()

    def _maintain_job(self, payload: dict[str, Any]) -> dict[str, Any]:
        healing = payload.get("reason") == HEAL
        try:
            rebuild = bool(payload.get("rebuild"))
            done = self.memory.maintain(rebuild, background=True).as_json()
        except BaseException:
            if payload.get("reason") == "startup":
                self.health.boot_failed()  # reads stop waiting for it
            raise
        if healing:
            done["healed"] = self.health.state.removeprefix(DEGRADED)
            self.health.healed()
            log.warning("the index is rebuilt from the pages and the log: healthy again")
        self.health.indexed()
        self._log_unseen()
        return done

    def index_damaged(self, exc: IndexDamagedError) -> None:
        """A store error met by a read or a write: the index is marked degraded and
        rebuilt from the pages and the log on the index worker (cards answer from
        the lanes that need no search meanwhile). One rebuild per damage."""
        if self.health.damaged(exc.message):
            log.warning("%s: rebuilding the index from the pages and the log", exc.message)
            self.queue.enqueue(MAINTAIN, {"reason": HEAL, "rebuild": True})

    def _log_unseen(self) -> None:
        """What the person would otherwise lose sight of, in the service log once
        each: a page that does not parse (out of search and the card) and a fact
        held for review."""
        from substrate.intake import held_entries
        from substrate.pages import load_page_index

        index = load_page_index(self.settings.workspace)
        for failure in index.parse_failures:
            key = f"parse:{failure.path}:{failure.error}"
            if key not in self._logged:
                self._logged.add(key)
                log.warning(
                    "page %s does not parse (%s): it is left out of search and the card",
                    failure.path,
                    failure.error,
                )
        for entry in held_entries(self.settings):
            if f"held:{entry.id}" not in self._logged:
                self._logged.add(f"held:{entry.id}")
                log.warning("fact %s is held for review (rule %s)", entry.id, entry.held)

    def finalize_soon(self) -> None:
        self.queue.enqueue(FINALIZE, {"reason": "session end"})
        self.episodes_soon()

    def episodes_soon(self) -> None:
        self.queue.enqueue(MAINTAIN, {"reason": "episodes of logged turns"})

    def _finalize(self, payload: dict[str, Any]) -> dict[str, Any]:
        ran = run_finalizations(self.settings, self.sessions, self.llm)
        detail: dict[str, Any] = {"reason": payload.get("reason", "queued"), "ran": ran}
        if not ran:
            detail[NOTHING_TO_DO] = "no finalization waits"
        return detail

    def run_now(self, dry_run: bool, limit: int | None, wait: bool) -> dict[str, Any]:
        """A dry run is planned on this thread; a real one runs on the worker, at most
        one at a time: a request while one is queued or running joins it (`deduped`)."""
        if dry_run:
            outcome = self.memory.file_buffer(dry_run=True, limit=limit)
            return {"job_id": None, "deduped": False, "state": "done", "outcome": outcome}
        payload: dict[str, Any] = {"reason": "run-now"}
        if limit is not None:
            payload["limit"] = limit
        queued = self.queue.enqueue(CONSOLIDATE, payload)
        out: dict[str, Any] = {"job_id": queued.id, "deduped": queued.deduped, "outcome": None}
        job = self.wait_for(queued, CONSOLIDATE_WAIT_S) if wait else None
        out["state"] = job["state"] if job else "queued"
        if job is not None:
            run = self.last_result(queued.id)
            out["outcome"] = run["detail"] if run else None
            out["error"] = job["last_error"] if job["state"] != "done" else None
            if job["state"] == "queued":
                out["state"] = "retrying"
        return out

    def consolidate(self, limit: int | None) -> dict[str, Any]:
        """`Memory.consolidate` on a served workspace: on the worker, waited for."""
        answer = self.run_now(False, limit, wait=True)
        if answer.get("error"):
            raise MemoryServiceError(f"consolidation failed: {answer['error']}")
        outcome: dict[str, Any] = answer.get("outcome") or {}
        return outcome

    def _consolidate(self, payload: dict[str, Any]) -> dict[str, Any]:
        limit = payload.get("limit")
        outcome = self.memory.file_buffer(limit=limit if isinstance(limit, int) else None)
        detail = {"reason": payload.get("reason", "schedule"), **outcome}
        if detail.pop("nothing_filed", None):
            detail[NOTHING_TO_DO] = NOTHING_FILED
        return detail
