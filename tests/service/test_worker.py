"""The worker runs and records jobs; the consolidation schedule follows its rules."""

from __future__ import annotations

import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service.jobs import JobQueue
from service.worker import (
    BACKGROUND_NICE,
    ConsolidationPolicy,
    Scheduler,
    Worker,
    consolidation_decision,
)
from substrate.errors import StoreUnavailableError
from substrate.intake import BufferEntry

HOUR = 3600.0
POLICY = ConsolidationPolicy(interval_s=8 * HOUR, max_buffer_lines=100)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def entries(n: int, at: float) -> list[BufferEntry]:
    when = datetime.fromtimestamp(at, UTC)
    return [BufferEntry(f"e{i}", when, f"fact {i}") for i in range(n)]


@pytest.mark.parametrize(
    ("n", "age_h", "since_due_h", "expected"),
    [
        (100, 0, 0, "run"),  # full buffer: at once, interval or not
        (50, 0, 1, "wait"),
        (10, 0, 8, "run"),
        (9, 1, 8, "skip"),  # below the minimum and young
        (3, 8, 8, "run"),  # below the minimum but waited a full interval
        (0, 0, 8, "skip"),
    ],
)
def test_consolidation_decision(n: int, age_h: float, since_due_h: float, expected: str) -> None:
    now = 1_700_000_000.0
    decision, why = consolidation_decision(
        entries(n, now - age_h * HOUR), POLICY, now - since_due_h * HOUR, now
    )
    assert decision == expected, why


def test_scheduler_queues_once_records_skips_and_respects_a_queued_job(tmp_path: Path) -> None:
    clock = Clock()
    queue = JobQueue(tmp_path / "jobs.sqlite", clock)
    buffer: list[BufferEntry] = entries(2, clock.now)
    scheduler = Scheduler(queue, POLICY, lambda: buffer, clock)
    assert scheduler.tick() == "wait"  # a new queue starts its first interval
    clock.now += 8 * HOUR
    buffer = entries(2, clock.now - HOUR)
    assert scheduler.tick() == "skip"
    assert queue.last_runs()["memory_v2_consolidate"]["detail"]["reason"].startswith("only 2")
    assert scheduler.tick() == "wait"  # the skip started a new interval
    buffer = entries(100, clock.now)
    assert scheduler.nudge() == "run"
    assert scheduler.nudge() is None  # a burst of remembers reads the buffer once
    assert scheduler.tick() == "run"
    assert queue.counts() == {"queued": 1}  # deduped


def test_worker_runs_a_job_and_records_the_outcome(tmp_path: Path) -> None:
    clock = Clock()
    queue = JobQueue(tmp_path / "jobs.sqlite", clock)
    seen: list[dict[str, Any]] = []

    def maintain(payload: dict[str, Any]) -> dict[str, Any]:
        seen.append(payload)
        return {"embedded": 3}

    worker = Worker(queue, {"memory_v3_maintain": maintain}, clock=clock)
    queued = queue.enqueue("memory_v3_maintain", {"why": "test"})
    assert worker.run_once() and not worker.run_once()
    assert seen == [{"why": "test"}]
    assert queue.last_runs()["memory_v3_maintain"]["detail"] == {"embedded": 3}
    assert queue.job(queued.id)["state"] == "done"  # type: ignore[index]


def test_a_failing_job_is_queued_again_after_its_backoff(tmp_path: Path) -> None:
    clock = Clock()
    queue = JobQueue(tmp_path / "jobs.sqlite", clock)

    def broken(payload: dict[str, Any]) -> dict[str, Any]:
        raise StoreUnavailableError("store is down")

    worker = Worker(queue, {"memory_v2_reembed": broken}, clock=clock)
    queue.enqueue("memory_v2_reembed")
    assert worker.run_once()
    assert not worker.run_once()  # waiting out the backoff
    clock.now += 5
    assert worker.run_once()
    assert [r["outcome"] for r in queue.history()] == ["retry", "retry"]


def test_idle_housekeeping_runs_only_when_a_poll_finds_no_job(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "jobs.sqlite")
    events: list[str] = []
    worker = Worker(
        queue,
        {"memory_v3_maintain": lambda payload: events.append("job") or {}},
        poll_s=0.01,
        idle=lambda: events.append("idle"),
    )
    queue.enqueue("memory_v3_maintain")
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while "idle" not in events and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        worker.stop()
    assert events[:2] == ["job", "idle"]


def test_a_job_queued_in_process_wakes_the_worker_before_its_poll(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "jobs.sqlite")
    ran = threading.Event()
    worker = Worker(
        queue, {"memory_v3_maintain": lambda payload: ran.set() or {}}, poll_s=600, tick_s=600
    )
    worker.start()
    try:
        time.sleep(0.2)  # the worker found nothing and sleeps for up to its 600 s poll
        queue.enqueue("memory_v3_maintain")
        assert ran.wait(60)
    finally:
        worker.stop()


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no per-thread priority here")
def test_background_jobs_run_at_a_lower_cpu_priority_than_requests(tmp_path: Path) -> None:
    """Under load the CPU goes to cards and remembers first: a job runs on a
    thread whose nice value is above the one serving requests."""
    queue = JobQueue(tmp_path / "jobs.sqlite")
    seen: list[int] = []

    def job(payload: Any) -> dict[str, Any]:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return {}

    worker = Worker(queue, {"memory_v3_maintain": job}, poll_s=600, tick_s=600)
    worker.start()
    try:
        queue.enqueue("memory_v3_maintain")
        deadline = time.monotonic() + 60
        while not seen and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        worker.stop()
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen and seen[0] >= min(here + BACKGROUND_NICE, 19)


def test_a_waiting_caller_is_told_of_failing_ticks_only_once_they_persist() -> None:
    """One failed tick (a database file deleted under the service, recreated by
    the next tick) is no reason to answer a waiting run-now with an error; a
    tick failing three times in a row (a full disk) is; a good tick clears it."""
    from service.worker import STUCK_TRIES, Failing

    failing = Failing()
    failing.failed("disk I/O error")
    assert failing.why == "disk I/O error" and failing.stuck is None
    for _ in range(STUCK_TRIES - 1):
        failing.failed("disk I/O error")
    assert failing.stuck == "disk I/O error"
    failing.recovered()
    assert failing.why is None and failing.stuck is None
