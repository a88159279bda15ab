"""The service's jobs: what each one runs on the worker, when the periodic ones
are queued, and how a request waits for one; a part of `Runtime` (mixed into
it).

Each job kind has one handler here (`handlers`): re-embedding and maintaining
the index (the index lane: the boot maintenance, a hand edit, a tending
change, a rebuild that heals a damaged index), consolidating the buffer,
finalizing ended sessions, capturing from quiet conversations and purging
what was forgotten (the learning lane). A request that runs one now (`run_now`)
joins a queued or running one rather than starting its own, and waits for its
next attempt, not its retries.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from service.index_health import DEGRADED, IndexHealth
from service.jobs import JobQueue, Queued
from service.memory import NOTHING_FILED, Memory
from service.worker import CAPTURE, CONSOLIDATE, FINALIZE, NOTHING_TO_DO, Handler, Worker
from substrate import IndexDamagedError, MaintainReport, MemoryServiceError, Settings
from substrate.curation import capture, run_finalizations

if TYPE_CHECKING:
    from substrate.llm import ChatClient
    from substrate.sessions import SessionLog

log = logging.getLogger("memory.service")
REEMBED = "memory_v2_reembed"
MAINTAIN = "memory_v3_maintain"
PURGE = "memory_purge"
HEAL = "heal a damaged index"
PURGE_DUE = "purge_last_due"
PURGE_DELAY_S = 30.0  # forgets in a row share one purge
CONSOLIDATE_WAIT_S = 600.0


class _Served(Protocol):
    """What the jobs read of their `Runtime`."""

    settings: Settings
    queue: JobQueue
    memory: Memory
    health: IndexHealth
    workers: list[Worker]
    _logged: set[str]
    _next_sweep: float
    _next_retrospective: float

    @property
    def sessions(self) -> SessionLog: ...

    @property
    def llm(self) -> ChatClient | None: ...

    def maintain(self, rebuild: bool = False) -> MaintainReport: ...

    def wait_for(self, queued: Queued, timeout_s: float) -> dict[str, Any] | None: ...

    def last_result(self, job_id: int) -> dict[str, Any] | None: ...

    def run_now(self, dry_run: bool, limit: int | None, wait: bool) -> dict[str, Any]: ...

    def episodes_soon(self) -> None: ...

    def _log_unseen(self) -> None: ...

    def _reembed(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def _maintain_job(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def _consolidate(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def _finalize(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def _capture(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    def _purge(self, payload: dict[str, Any]) -> dict[str, Any]: ...


class ServedJobs:
    def handlers(self: _Served) -> dict[str, Handler]:
        """Each job kind's handler."""
        return {
            REEMBED: self._reembed,
            MAINTAIN: self._maintain_job,
            CONSOLIDATE: self._consolidate,
            FINALIZE: self._finalize,
            CAPTURE: self._capture,
            PURGE: self._purge,
        }

    def schedule_capture(self: _Served, now: float | None = None) -> list[str]:
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

    def schedule_purge(self: _Served, now: float | None = None) -> bool:
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

    def purge_soon(self: _Served) -> None:
        """A forget took whole sessions: a purge shortly (coalesced with any
        already queued; the lowest priority of its lane)."""
        self.queue.enqueue(PURGE, {"reason": "a session was forgotten"}, delay_s=PURGE_DELAY_S)

    def reindex_soon(self: _Served) -> None:
        """A tending change: its re-embedding on the index lane (coalesced with a
        queued one)."""
        self.queue.enqueue(MAINTAIN, {"reason": "tending"})

    def _purge(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
        done = self.memory.purge(trash=bool(payload.get("trash")))
        return {"reason": payload.get("reason", "queued"), **done}

    def _capture(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
        trigger = str(payload.get("trigger", "retrospective"))
        ran = capture(self.settings, self.sessions, self.llm, trigger)
        detail: dict[str, Any] = {"trigger": trigger, "sessions": ran}
        if not ran:
            detail[NOTHING_TO_DO] = "no conversation has unread messages"
        return detail

    def wait_for(self: _Served, queued: Queued, timeout_s: float) -> dict[str, Any] | None:
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
            trouble = next((w.failing.stuck for w in self.workers if w.failing.stuck), None)
            if job is not None and trouble is not None:  # no attempt can start (a full disk)
                return {**job, "last_error": trouble}
            time.sleep(0.2)
        return None

    def last_result(self: _Served, job_id: int) -> dict[str, Any] | None:
        for run in self.queue.history(limit=50):
            if run["job_id"] == job_id:
                return run
        return None

    def _reembed(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
        return self.maintain().as_json()

    def _maintain_job(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
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

    def index_damaged(self: _Served, exc: IndexDamagedError) -> None:
        """A store error met by a read or a write: the index is marked degraded and
        rebuilt from the pages and the log on the index worker (cards answer from
        the lanes that need no search meanwhile). One rebuild per damage."""
        if self.health.damaged(exc.message):
            log.warning("%s: rebuilding the index from the pages and the log", exc.message)
            self.queue.enqueue(MAINTAIN, {"reason": HEAL, "rebuild": True})

    def _log_unseen(self: _Served) -> None:
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

    def finalize_soon(self: _Served) -> None:
        self.queue.enqueue(FINALIZE, {"reason": "session end"})
        self.episodes_soon()

    def episodes_soon(self: _Served) -> None:
        self.queue.enqueue(MAINTAIN, {"reason": "episodes of logged turns"})

    def _finalize(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
        ran = run_finalizations(self.settings, self.sessions, self.llm)
        detail: dict[str, Any] = {"reason": payload.get("reason", "queued"), "ran": ran}
        if not ran:
            detail[NOTHING_TO_DO] = "no finalization waits"
        return detail

    def run_now(self: _Served, dry_run: bool, limit: int | None, wait: bool) -> dict[str, Any]:
        """A dry run is planned on this thread; a real one runs on the worker, at most
        one at a time: a request while one is queued joins it (`deduped`); one that
        waits while a run is already running waits it out and runs once more, so
        what was remembered before the request is filed when it answers."""
        if dry_run:
            outcome = self.memory.file_buffer(dry_run=True, limit=limit)
            return {"job_id": None, "deduped": False, "state": "done", "outcome": outcome}
        payload: dict[str, Any] = {"reason": "run-now"}
        if limit is not None:
            payload["limit"] = limit
        queued = self.queue.enqueue(CONSOLIDATE, payload)
        joined = self.queue.job(queued.id) if queued.deduped and wait else None
        if joined is not None and joined["state"] == "running":
            # a run that began before this request may have taken the buffer
            # before the last remember: wait it out, then run once more
            self.wait_for(queued, CONSOLIDATE_WAIT_S)
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

    def consolidate(self: _Served, limit: int | None) -> dict[str, Any]:
        """`Memory.consolidate` on a served workspace: on the worker, waited for."""
        answer = self.run_now(False, limit, wait=True)
        if answer.get("error"):
            raise MemoryServiceError(f"consolidation failed: {answer['error']}")
        outcome: dict[str, Any] = answer.get("outcome") or {}
        return outcome

    def _consolidate(self: _Served, payload: dict[str, Any]) -> dict[str, Any]:
        limit = payload.get("limit")
        outcome = self.memory.file_buffer(limit=limit if isinstance(limit, int) else None)
        detail = {"reason": payload.get("reason", "schedule"), **outcome}
        if detail.pop("nothing_filed", None):
            detail[NOTHING_TO_DO] = NOTHING_FILED
        return detail
