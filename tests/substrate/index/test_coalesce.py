"""Coalescer: concurrent calls share batches, each caller gets its own answer."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from substrate.index.coalesce import Coalescer


def test_concurrent_callers_share_batches_and_get_their_own_results() -> None:
    batches: list[list[int]] = []
    release = threading.Event()

    def square_all(items: list[int]) -> list[int]:
        batches.append(items)
        release.wait(5)  # the first batch holds while the others queue up
        return [i * i for i in items]

    square = Coalescer(square_all, max_batch=8)
    with ThreadPoolExecutor(20) as pool:
        futures = [pool.submit(square, i) for i in range(20)]
        while sum(len(b) for b in batches) == 0:
            threading.Event().wait(0.01)
        threading.Event().wait(0.2)
        release.set()
        results = [f.result(timeout=10) for f in futures]
    assert results == [i * i for i in range(20)]
    assert sorted(i for b in batches for i in b) == list(range(20))  # each item run once
    assert max(len(b) for b in batches) <= 8
    assert len(batches) < 20  # callers that arrived during a batch were batched together


def test_a_lone_call_runs_at_once_as_a_batch_of_one() -> None:
    batches: list[list[str]] = []
    upper = Coalescer(lambda items: batches.append(items) or [s.upper() for s in items])
    assert upper("a") == "A"
    assert upper("b") == "B"
    assert batches == [["a"], ["b"]]


def test_a_failed_batch_fails_every_caller_in_it_and_the_next_batch_runs() -> None:
    def fail_on_bad(items: list[str]) -> list[str]:
        if "bad" in items:
            raise ValueError("bad input")
        return items

    echo = Coalescer(fail_on_bad)
    with pytest.raises(ValueError, match="bad input"):
        echo("bad")
    assert echo("good") == "good"


def test_a_batch_answering_the_wrong_count_is_an_error() -> None:
    broken = Coalescer(lambda items: [])
    with pytest.raises(RuntimeError, match="a batch of 1 answered 0"):
        broken("x")
