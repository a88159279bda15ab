"""The SQLite job queue: dedupe, leases, retries on two backoff curves, history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.jobs import BILLING, TRANSIENT, BillingJobError, JobQueue
from substrate.errors import BillingError, InvalidInputError, StoreUnavailableError, TransientError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def queue(tmp_path: Path, clock: Clock) -> JobQueue:
    return JobQueue(tmp_path / "jobs.sqlite", clock)


def test_identical_queued_jobs_are_deduped(queue: JobQueue) -> None:
    first = queue.enqueue("memory_v3_maintain")
    again = queue.enqueue("memory_v3_maintain")
    other = queue.enqueue("memory_v2_reembed", {"slugs": ["a"]})
    assert (again.id, again.deduped) == (first.id, True)
    assert not other.deduped and other.id != first.id
    assert queue.counts() == {"queued": 2}


def test_unknown_kind_is_refused(queue: JobQueue) -> None:
    with pytest.raises(InvalidInputError, match="unknown job kind 'nope'"):
        queue.enqueue("nope")


def test_a_claimed_job_is_not_claimed_twice_until_its_lease_expires(
    queue: JobQueue, clock: Clock
) -> None:
    queue.enqueue("memory_v3_maintain")
    job = queue.claim(lease_s=60)
    assert job is not None and job.attempts == 1
    assert queue.claim(lease_s=60) is None
    clock.now += 61  # the worker died holding it
    recovered = queue.claim(lease_s=60)
    assert recovered is not None and (recovered.id, recovered.attempts) == (job.id, 2)


def test_a_job_queued_while_one_runs_is_not_merged_into_it(queue: JobQueue) -> None:
    queue.enqueue("memory_v3_maintain")
    assert queue.claim() is not None
    assert not queue.enqueue("memory_v3_maintain").deduped


def test_transient_failures_back_off_exponentially_then_fail(queue: JobQueue, clock: Clock) -> None:
    queue.enqueue("memory_v3_maintain")
    delays = []
    for attempt in range(1, TRANSIENT.attempts + 1):
        job = queue.claim()
        assert job is not None and job.attempts == attempt
        outcome = queue.fail(job, StoreUnavailableError("store down"), clock.now)
        row = queue.job(job.id)
        assert row is not None
        if attempt < TRANSIENT.attempts:
            assert outcome == "retry" and row["state"] == "queued"
            delays.append(row["run_after"] - clock.now)
            assert queue.claim() is None  # not before the backoff
            clock.now = row["run_after"]
        else:
            assert outcome == "failed" and row["state"] == "failed"
            assert "store down" in row["last_error"]
    assert delays == [5.0, 10.0, 20.0, 40.0, 80.0]


def test_billing_failures_use_the_slow_curve(queue: JobQueue, clock: Clock) -> None:
    queue.enqueue("memory_v2_consolidate")
    job = queue.claim()
    assert job is not None
    queue.fail(job, BillingJobError("402 payment required"), clock.now)
    row = queue.job(job.id)
    assert row is not None and row["run_after"] - clock.now == BILLING.first_s


def test_a_user_error_is_not_retried(queue: JobQueue, clock: Clock) -> None:
    queue.enqueue("memory_v3_maintain")
    job = queue.claim()
    assert job is not None
    assert queue.fail(job, InvalidInputError("bad page"), clock.now) == "failed"


def test_history_is_bounded_and_reports_the_last_run_of_each_kind(
    queue: JobQueue, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("service.jobs.HISTORY", 5)
    for i in range(8):
        queue.enqueue("memory_v3_maintain", {"i": i})
        job = queue.claim()
        assert job is not None
        clock.now += 1
        queue.complete(job, {"i": i}, clock.now - 1)
    queue.record_skip("memory_v2_consolidate", "buffer is empty")
    history = queue.history(limit=100)
    assert len(history) == 5
    last = queue.last_runs()
    assert last["memory_v3_maintain"]["detail"] == {"i": 7}
    assert last["memory_v2_consolidate"]["outcome"] == "skipped"


def test_the_queue_survives_a_new_process(tmp_path: Path, clock: Clock) -> None:
    JobQueue(tmp_path / "q.sqlite", clock).enqueue("memory_v2_reembed")
    job = JobQueue(tmp_path / "q.sqlite", clock).claim()
    assert job is not None and job.kind == "memory_v2_reembed"


def test_at_most_one_consolidation_is_queued_or_running(queue: JobQueue) -> None:
    first = queue.enqueue("memory_v2_consolidate", {"reason": "schedule"})
    nudge = queue.enqueue("memory_v2_consolidate", {"reason": "nudge"})
    assert (nudge.id, nudge.deduped) == (first.id, True)
    job = queue.claim()
    assert job is not None and job.id == first.id
    run_now = queue.enqueue("memory_v2_consolidate", {"reason": "run-now"})
    assert (run_now.id, run_now.deduped) == (first.id, True)  # joins the running one
    queue.complete(job, {}, 0.0)
    assert not queue.enqueue("memory_v2_consolidate", {"reason": "run-now"}).deduped


def test_a_job_that_found_nothing_to_do_is_recorded_skipped(queue: JobQueue) -> None:
    queue.enqueue("memory_v2_consolidate")
    job = queue.claim()
    assert job is not None
    queue.complete(job, {"nothing_to_do": "empty"}, 0.0, "skipped")
    assert queue.history(1)[0]["outcome"] == "skipped"


def test_finished_jobs_are_pruned(queue: JobQueue, monkeypatch: pytest.MonkeyPatch) -> None:
    import service.jobs

    monkeypatch.setattr(service.jobs, "FINISHED_KEPT", 5)
    for i in range(12):
        queue.enqueue("memory_v2_reembed", {"n": i})
        job = queue.claim()
        assert job is not None
        queue.complete(job, {}, 0.0)
    assert queue.counts() == {"done": 5}


@pytest.mark.parametrize(
    ("error", "curve"),
    [(TransientError("model timed out"), TRANSIENT), (BillingError("402"), BILLING)],
)
def test_model_failures_back_off_on_their_own_curve(
    queue: JobQueue, clock: Clock, error: Exception, curve: Any
) -> None:
    queue.enqueue("memory_v2_consolidate")
    job = queue.claim()
    assert job is not None
    assert queue.fail(job, error, clock.now) == "retry"
    assert queue.job(job.id)["run_after"] == clock.now + curve.delay(1)  # type: ignore[index]
