"""Concurrent query embeddings share model runs, and each caller gets its own
vectors (or its own error), in the order they came."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from substrate.index.query_batch import MAX_BATCH, QueryBatcher


class SlowModel:
    """Each run costs a fixed pause, as a model call does, and records its batch."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self._lock = threading.Lock()
        self._fail_on = fail_on

    def __call__(self, texts: list[str]) -> list[str]:
        time.sleep(0.02)
        with self._lock:
            self.batches.append(list(texts))
        if self._fail_on is not None and self._fail_on in texts:
            raise ValueError(f"model failed on {self._fail_on}")
        return [t.upper() for t in texts]


@pytest.mark.parametrize("callers", [1, 7, 64])
def test_each_caller_gets_its_own_vectors_and_concurrent_ones_share_runs(callers: int) -> None:
    model = SlowModel()
    batcher = QueryBatcher(model)
    texts = [f"query {n}" for n in range(callers)]
    with ThreadPoolExecutor(callers) as pool:
        got = list(pool.map(batcher, texts))
    assert got == [t.upper() for t in texts]
    assert sorted(t for batch in model.batches for t in batch) == sorted(texts)  # each once
    assert all(len(batch) <= MAX_BATCH for batch in model.batches)
    if callers > 1:
        assert len(model.batches) < callers  # some shared a run


def test_a_quiet_caller_runs_at_once_alone() -> None:
    model = SlowModel()
    batcher = QueryBatcher(model)
    assert [batcher("a"), batcher("b")] == ["A", "B"]
    assert model.batches == [["a"], ["b"]]


def test_a_failed_run_is_each_of_its_callers_error_and_the_next_run_goes_on() -> None:
    model = SlowModel(fail_on="bad")
    batcher = QueryBatcher(model)
    with pytest.raises(ValueError, match="model failed on bad"):
        batcher("bad")
    assert batcher("good") == "GOOD"
