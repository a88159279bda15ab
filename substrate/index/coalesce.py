"""Concurrent single calls answered by one batched call.

A model run has a fixed cost per call (session dispatch, thread wake-ups)
that dwarfs one short query, and concurrent runs of one ONNX session on two
cores fight over them. So the service's threads do not each embed their
query: the first caller runs a batch of every query waiting at that moment,
and callers arriving meanwhile wait for it to finish, then the next of them
runs the next batch. Nothing waits on a timer, so a lone caller pays nothing
extra, and under load the batch size follows the load.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _Call(Generic[T, R]):
    __slots__ = ("done", "error", "item", "result")

    def __init__(self, item: T) -> None:
        self.item = item
        self.result: R | None = None
        self.error: BaseException | None = None
        self.done = False


class Coalescer(Generic[T, R]):
    def __init__(self, run_batch: Callable[[list[T]], Sequence[R]], max_batch: int = 64) -> None:
        self._run_batch = run_batch
        self._max_batch = max_batch
        self._cond = threading.Condition()
        self._waiting: list[_Call[T, R]] = []
        self._running = False

    def __call__(self, item: T) -> R:
        call: _Call[T, R] = _Call(item)
        batch: list[_Call[T, R]] = []
        with self._cond:
            self._waiting.append(call)
            while self._running and not call.done:
                self._cond.wait()
            if not call.done:  # this caller runs the next batch, its own call first
                self._running = True
                self._waiting.remove(call)
                batch = [call, *self._waiting[: self._max_batch - 1]]
                del self._waiting[: self._max_batch - 1]
        if batch:
            self._run(batch)
        if call.error is not None:
            raise call.error
        return call.result  # type: ignore[return-value]

    def _run(self, batch: list[_Call[T, R]]) -> None:
        try:
            results = self._run_batch([c.item for c in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} answered {len(results)} results")
            for c, r in zip(batch, results, strict=True):
                c.result = r
        except BaseException as exc:  # noqa: BLE001 - re-raised in every caller of the batch
            for c in batch:
                c.error = exc
        finally:
            with self._cond:
                for c in batch:
                    c.done = True
                self._running = False
                self._cond.notify_all()
