"""A job whose worker process died is taken over at once, not after its lease."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from service.jobs import JobQueue
from service.owners import alive, start_time, this_process

CLAIM_AND_HANG = textwrap.dedent(
    """
    import sys, time
    from service.jobs import JobQueue
    queue = JobQueue(__import__("pathlib").Path(sys.argv[1]))
    job = queue.claim(lease_s=300, lane=sys.argv[2])
    print(job.id if job else "none", flush=True)
    time.sleep(600)
    """
)


def _claim_in_child(path: Path, lane: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CLAIM_AND_HANG, str(path), lane],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() != "none"
    return child


def test_a_job_of_a_killed_worker_is_claimed_at_once_not_after_its_lease(
    tmp_path: Path,
) -> None:
    path = tmp_path / "jobs.sqlite"
    queue = JobQueue(path)
    queued = queue.enqueue("memory_v2_consolidate", {"reason": "run-now"})
    child = _claim_in_child(path, "learning")
    assert queue.claim(lane="learning") is None  # its owner runs: the lease holds
    assert queue.expired_leases() == []
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()  # type: ignore[union-attr]
    taken = queue.claim(lane="learning")
    assert taken is not None and (taken.id, taken.attempts) == (queued.id, 2)
    assert queue.claim(lane="learning") is None  # now ours, alive


def test_a_dead_owners_job_is_listed_and_released_by_doctor_s_repair(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite"
    queue = JobQueue(path)
    queued = queue.enqueue("memory_v3_maintain", {"reason": "x"})
    child = _claim_in_child(path, "index")
    child.kill()
    child.wait()
    child.stdout.close()  # type: ignore[union-attr]
    assert [job for job, _, _ in queue.expired_leases()] == [queued.id]
    assert queue.release(queued.id)
    assert queue.job(queued.id)["state"] == "queued"  # type: ignore[index]


def test_an_owner_is_alive_only_while_the_same_process_runs() -> None:
    me = this_process()
    assert alive(me)
    pid, _, started = me.partition(":")
    assert started == start_time(int(pid))
    assert not alive(f"{pid}:{int(started) + 1}")  # the pid given to another process
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not alive(f"{child.pid}:1")
    assert not alive("not-a-pid")


def test_a_version_1_queue_gains_the_owner_column_and_keeps_its_jobs(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
          payload TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
          run_after REAL NOT NULL, lease_until REAL, created_at REAL NOT NULL,
          finished_at REAL, last_error TEXT);
        INSERT INTO jobs (kind, payload, state, run_after, created_at)
          VALUES ('memory_v3_maintain', '{}', 'queued', 0, 0);
        PRAGMA user_version = 1;
        """
    )
    db.close()
    job = JobQueue(path).claim()
    assert job is not None and job.kind == "memory_v3_maintain"
