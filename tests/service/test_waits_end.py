"""A wait ends: `run-now` with `wait` answers with the attempt's error instead
of waiting out the retries, and a worker whose ticks keep failing (a full
disk) backs off and says so once per change of state."""

from __future__ import annotations

import logging
import time

import pytest

import service.served_jobs as jobs_module
from service.jobs import JobQueue
from service.runtime import Runtime
from service.settings_loader import build_settings
from service.worker import MOST_PAUSE_S, Failing, Worker
from substrate import Workspace, remember
from substrate.errors import DiskFullError, StoreUnavailableError
from tests.embedders import HashingEmbedder


def test_run_now_answers_with_the_attempt_s_error(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = build_settings(workspace.root)
    rt = Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )
    monkeypatch.setattr(jobs_module, "CONSOLIDATE_WAIT_S", 30.0)

    def failing(*args: object, **kwargs: object) -> dict[str, object]:
        raise StoreUnavailableError("the store went away")

    monkeypatch.setattr(rt.memory, "file_buffer", failing)
    try:
        rt.start()
        remember(settings, "Sam keeps bees.")
        answer = rt.run_now(dry_run=False, limit=None, wait=True)
        assert answer["state"] == "retrying"
        assert "the store went away" in answer["error"]
    finally:
        rt.close()


def test_a_failing_worker_backs_off_and_says_so_once(
    tmp_path: object, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    queue = JobQueue(Path(str(tmp_path)) / "jobs.sqlite")
    tries: list[float] = []

    def full(*args: object, **kwargs: object) -> None:
        tries.append(time.monotonic())
        raise DiskFullError("the disk is full: nothing was stored; free some space")

    monkeypatch.setattr(queue, "claim", full)
    worker = Worker(queue, {}, poll_s=0.01)
    with caplog.at_level(logging.WARNING, logger="memory.worker"):
        worker.start()
        time.sleep(2.0)
        queue.any_enqueued.set()  # new jobs do not cut a back-off short
        worker.stop()
    said = [r for r in caplog.records if "worker tick failed" in r.getMessage()]
    assert len(said) == 1
    assert 2 <= len(tries) <= 4  # 0.5 s, then 1 s: not twice a second
    assert worker.failing.why is not None


def test_the_back_off_doubles_to_a_cap_and_a_recovery_resets_it() -> None:
    failing = Failing()
    assert failing.failed("the disk is full") and not failing.failed("the disk is full")
    pauses = []
    for _ in range(12):
        failing.failed("the disk is full")
        pauses.append(failing.pause_s)
    assert pauses == sorted(pauses) and pauses[-1] == MOST_PAUSE_S
    assert failing.failed("another trouble")  # a change of state is said
    failing.recovered()
    assert failing.why is None and failing.pause_s == 0.5
