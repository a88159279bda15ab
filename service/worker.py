"""The job worker and the consolidation schedule.

A worker is one thread in the app's lifespan, one per lane of the queue
(`jobs.LANES`): it claims its lane's due jobs, runs the handler for the job's
kind, and records the outcome; between jobs the index lane's worker ticks the
scheduler and does the idle housekeeping. Within a lane jobs run one at a
time; model work (the learning lane) never holds up index upkeep.

Consolidation runs every `consolidation_interval_hours`, but a pass over a
handful of facts wastes a model call, so a due pass is skipped (and the skip
recorded) while the buffer holds fewer than `MIN_ENTRIES` entries, unless
the non-empty buffer has already waited a full interval. A buffer that
reaches `consolidation_max_buffer_lines` entries is consolidated at once.
A user's `remember` nudges the schedule (the same rules, checked now rather
than at the next tick); nudges and ticks queue through the queue's dedupe,
so a job already queued, or waiting out a retry backoff, is never doubled
or hurried.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.jobs import JobQueue
from substrate.errors import MemoryServiceError
from substrate.intake import BufferEntry

CONSOLIDATE = "memory_v2_consolidate"
FINALIZE = "memory_finalize"
CAPTURE = "memory_capture"
# A handler whose result holds this key (with the reason) found nothing to do:
# the run is recorded as `skipped`, not `ok`.
NOTHING_TO_DO = "nothing_to_do"
MIN_ENTRIES = 10
LAST_DUE = "consolidation_last_due"
POLL_S = 5.0
TICK_S = 30.0
NUDGE_S = 2.0

log = logging.getLogger("memory.worker")

Handler = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ConsolidationPolicy:
    interval_s: float
    max_buffer_lines: int
    min_entries: int = MIN_ENTRIES


def consolidation_decision(
    entries: list[BufferEntry], policy: ConsolidationPolicy, last_due: float, now: float
) -> tuple[str, str]:
    """("run" | "skip" | "wait", why) for the buffer as it stands at `now`."""
    n = len(entries)
    if n >= policy.max_buffer_lines:
        return "run", f"buffer holds {n} entries (max {policy.max_buffer_lines})"
    if now - last_due < policy.interval_s:
        return "wait", "interval not yet elapsed"
    if n >= policy.min_entries:
        return "run", f"interval elapsed with {n} entries"
    if n == 0:
        return "skip", "buffer is empty"
    oldest = min(e.at for e in entries).timestamp()
    if now - oldest >= policy.interval_s:
        return "run", f"{n} entries, the oldest waiting a full interval"
    return "skip", f"only {n} entries (fewer than {policy.min_entries})"


class Scheduler:
    def __init__(
        self,
        queue: JobQueue,
        policy: ConsolidationPolicy,
        buffer: Callable[[], list[BufferEntry]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._queue = queue
        self._policy = policy
        self._buffer = buffer
        self._clock = clock
        self._next_nudge = 0.0

    def tick(self) -> str:
        """Apply the schedule now; returns the decision."""
        now = self._clock()
        last_due = self._queue.mark(LAST_DUE)
        if last_due is None:  # a new queue starts its first interval now
            self._queue.set_mark(LAST_DUE, now)
            last_due = now
        decision, why = consolidation_decision(self._buffer(), self._policy, last_due, now)
        if decision == "wait":
            return decision
        if now - last_due >= self._policy.interval_s:
            self._queue.set_mark(LAST_DUE, now)
        if decision == "run":
            self._queue.enqueue(CONSOLIDATE, {"reason": "schedule"})
        else:
            self._queue.record_skip(CONSOLIDATE, why)
        return decision

    def nudge(self) -> str | None:
        """A `remember` asks for the schedule now: applied at most once every
        `NUDGE_S` (a burst of writes reads the buffer once, not once a write);
        None when this nudge was folded into a recent one."""
        now = time.monotonic()
        if now < self._next_nudge:
            return None
        self._next_nudge = now + NUDGE_S
        return self.tick()


BACKGROUND_NICE = 5


def background_priority() -> None:
    """Give the calling thread a smaller share of a busy CPU than the request
    threads (Linux schedules threads, so a nice value is per thread): under
    load, a card or a remember is served before an index upkeep or a
    consolidation that nobody waits on, which still runs, only slower (nice 5
    weighs a third of nice 0). Where the platform has no per-thread priority
    this does nothing."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + BACKGROUND_NICE)
    except (OSError, AttributeError):
        pass


class Worker:
    def __init__(
        self,
        queue: JobQueue,
        handlers: dict[str, Handler],
        scheduler: Scheduler | None = None,
        poll_s: float = POLL_S,
        clock: Callable[[], float] = time.time,
        idle: Callable[[], object] | None = None,
        tick_s: float = TICK_S,
        lane: str | None = None,
    ) -> None:
        """`idle` runs whenever a poll finds no job (deferred housekeeping).

        A job queued in this process wakes the worker at once; `poll_s` only
        bounds how late it sees a retry come due or a job another process
        queued. The schedule is checked every `tick_s` (its intervals are hours;
        a `remember` nudges it directly). Each wake-up costs CPU even when
        there is nothing to do, so both are seconds, not milliseconds."""
        self._queue = queue
        self._handlers = handlers
        self._lane = lane
        self._scheduler = scheduler
        self._idle = idle
        self._poll_s = poll_s
        self._tick_s = tick_s
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failing = Failing()  # why the worker's ticks keep failing, if they do

    def run_once(self) -> bool:
        """Run one due job if there is one; returns whether one ran."""
        job = self._queue.claim(lane=self._lane)
        if job is None:
            return False
        started = self._clock()
        try:
            detail = self._handlers[job.kind](job.payload)
        except Exception as exc:  # noqa: BLE001 - every failure is recorded, then retried or failed
            outcome = self._queue.fail(job, exc, started)
            log.warning("job %s %s: %s (%s)", job.id, job.kind, exc, outcome)
        else:
            outcome = "skipped" if detail.get(NOTHING_TO_DO) else "ok"
            self._queue.complete(job, detail, started, outcome)
        return True

    def start(self) -> None:
        name = f"memory-worker-{self._lane or 'all'}"
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        self._wakeup().set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _wakeup(self) -> threading.Event:
        if self._lane is not None:
            return self._queue.enqueued[self._lane]
        return self._queue.any_enqueued

    def _loop(self) -> None:
        background_priority()
        next_tick = 0.0
        failing = self.failing
        while not self._stop.is_set():
            try:
                if self._scheduler is not None and time.monotonic() >= next_tick:
                    next_tick = time.monotonic() + self._tick_s
                    self._scheduler.tick()
                ran = self.run_once()
                if not ran and self._idle is not None:
                    self._idle()
            except MemoryServiceError as exc:  # a full disk, a held store: said, not dumped
                failing.failed(exc.message)
                self._stop.wait(failing.pause_s)  # backs off; a new job does not wake it
                continue
            except Exception as exc:
                if failing.failed(f"{type(exc).__name__}: {exc}"):
                    log.exception("worker tick failed")
                self._stop.wait(failing.pause_s)
                continue
            failing.recovered()
            if not ran:
                wakeup = self._wakeup()
                wakeup.wait(self._poll_s)
                wakeup.clear()


FIRST_PAUSE_S = 0.5
MOST_PAUSE_S = 60.0
STUCK_TRIES = 3  # failed ticks in a row (0.5 + 1 + 2 s apart) before a waiting caller is told


class Failing:
    """A worker whose tick keeps failing (a full disk): it waits longer each time
    (0.5 s doubling to a minute), and says so once per change of state, not at
    every try."""

    def __init__(self) -> None:
        self._said: str | None = None
        self._tries = 0

    @property
    def why(self) -> str | None:
        """What the failing ticks say, while they fail."""
        return self._said

    @property
    def stuck(self) -> str | None:
        """What the failing ticks say once they have failed `STUCK_TRIES` times in
        a row (a full disk), not after one passing failure (a database file
        deleted under a running service, which the next tick recreates)."""
        return self._said if self._tries >= STUCK_TRIES else None

    @property
    def pause_s(self) -> float:
        return float(min(MOST_PAUSE_S, FIRST_PAUSE_S * 2 ** max(0, self._tries - 1)))

    def failed(self, why: str) -> bool:
        """Count a failure; True (and logged) when it is not what was said last."""
        self._tries += 1
        if why == self._said:
            return False
        self._said = why
        log.warning("worker tick failed: %s (retrying, backing off to %.0f s)", why, MOST_PAUSE_S)
        return True

    def recovered(self) -> None:
        if self._said is not None:
            log.warning("worker recovered after %d failed tries", self._tries)
        self._said, self._tries = None, 0
