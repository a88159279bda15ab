"""Query embeddings of concurrent requests, run as one batch.

Under load every card embeds its turn on its own thread, and each model run
pays its fixed cost (a session call, thread hand-offs inside the runtime)
per query while the threads fight over the cores. Here the first caller
becomes the batch's runner: it takes every query waiting (up to `MAX_BATCH`),
embeds them in one call per model, hands each caller its vectors, and goes on
while more arrived meanwhile. Callers are served in the order they came, so a
slow request is never overtaken for good; a quiet service embeds each query
alone, with no added wait (nothing waits for a batch to fill).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
MAX_BATCH = 32


@dataclass
class _Slot(Generic[T]):
    text: str
    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None


class QueryBatcher(Generic[T]):
    """`embed_many` embeds a list of queries (one call per model)."""

    def __init__(self, embed_many: Callable[[list[str]], list[T]]) -> None:
        self._embed_many = embed_many
        self._lock = threading.Lock()
        self._waiting: list[_Slot[T]] = []
        self._running = False
        self.batches = 0  # how many model calls served how many queries
        self.queries = 0

    def __call__(self, text: str) -> T:
        slot: _Slot[T] = _Slot(text)
        with self._lock:
            self._waiting.append(slot)
            lead = not self._running
            self._running = True
        if lead:
            self._run()
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        assert slot.result is not None
        return slot.result

    def _run(self) -> None:
        """Embed what waits, batch after batch, until nothing does."""
        while True:
            with self._lock:
                batch = self._waiting[:MAX_BATCH]
                del self._waiting[:MAX_BATCH]
                if not batch:
                    self._running = False
                    return
            try:
                vectors = self._embed_many([s.text for s in batch])
            except Exception as exc:  # noqa: BLE001 - each caller raises what its call would
                for slot in batch:
                    slot.error = exc
                    slot.done.set()
                continue
            self.batches += 1
            self.queries += len(batch)
            for slot, found in zip(batch, vectors, strict=True):
                slot.result = found
                slot.done.set()
