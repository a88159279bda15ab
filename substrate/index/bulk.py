"""Bulk embedding: keep both cores busy while indexing.

Indexing used to run MiniLM (an ONNX session on every core) and then USE on one
BLAS thread for each batch, so one core idled through every USE phase, and
through the whole-page vectors of short pages (`maintain._page_context`), where
USE runs alone. Now USE runs on every core whenever it runs alone (`all_cores`).

`concurrent` (`[memory.substrate.compute] concurrent = true`) instead gives
each model its own lane, a thread that embeds every batch in order: MiniLM
through a one-thread sibling session (`FastembedEmbedder.with_threads`), USE
on one BLAS thread; when one lane has finished, the other gets every core.
Measured on 2 cores it is not the default: MiniLM's session already scales
with its threads (22.1 chunks/s on two, 11.1 on one, 18.9 for two one-thread
sessions side by side), so running it on one core beside USE mostly trades
one model's speed for the other's; it won 7% on 400-800-word pages and lost
19% on 180-280-word pages (docs/benchmarks.md).

The vectors are the models' own either way: the same inputs through the same
weights. A maintain of one batch and a one-core machine keep the plain path.
Query embedding never comes here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from substrate.index.embedding import Embedder, Vectors
from substrate.index.store import DENSE, DENSE_ML


@runtime_checkable
class Sessioned(Protocol):
    def with_threads(self, threads: int) -> Embedder: ...


@runtime_checkable
class Throttled(Protocol):
    def set_threads(self, threads: int) -> None: ...


Pick = Callable[[bool], Embedder]  # other lane finished -> the embedder to use


class _Lane(threading.Thread):
    def __init__(self, name: str, pick: Pick, batches: list[list[str]], stop: threading.Event):
        super().__init__(name=f"embed-{name}", daemon=True)
        self.pick = pick
        self.batches = batches
        self.stop = stop
        self.results: list[Vectors | None] = [None] * len(batches)
        self.ready = [threading.Event() for _ in batches]
        self.done = threading.Event()
        self.other: _Lane | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for i, texts in enumerate(self.batches):
                if self.stop.is_set():
                    return
                alone = self.other is not None and self.other.done.is_set()
                self.results[i] = self.pick(alone).embed_documents(texts)
                self.ready[i].set()
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, raised there
            self.error = exc
        finally:
            self.done.set()
            for event in self.ready:
                event.set()

    def take(self, i: int) -> Vectors:
        self.ready[i].wait()
        result = self.results[i]
        if result is None:
            raise self.error or RuntimeError(f"{self.name} stopped before batch {i}")
        self.results[i] = None  # the consumer holds it now
        return result


def _one_after_the_other(
    embedders: dict[str, Embedder], batches: list[list[str]], cpus: int
) -> Iterator[dict[str, Vectors]]:
    """Each batch through each model in turn, the multilingual one on every core
    (it runs alone: MiniLM's session already spans the cores)."""
    for texts in batches:
        out = {}
        for name, embedder in embedders.items():
            if name == DENSE_ML:
                with all_cores(embedder, cpus):
                    out[name] = embedder.embed_documents(texts)
            else:
                out[name] = embedder.embed_documents(texts)
        yield out


@contextmanager
def all_cores(embedder: Embedder, cpus: int) -> Iterator[None]:
    """The multilingual model on every core while it runs alone (the whole-page
    vectors of `maintain._page_context`, before any batch): one BLAS thread
    left the other core idle through that phase."""
    if not isinstance(embedder, Throttled) or cpus < 2:
        yield
        return
    embedder.set_threads(cpus)
    try:
        yield
    finally:
        embedder.set_threads(1)


def embed_batches(
    embedders: dict[str, Embedder], batches: list[list[str]], cpus: int, concurrent: bool = False
) -> Iterator[dict[str, Vectors]]:
    """Each batch's vectors by vector name, in order: one model after the other
    (the default), or side by side with `concurrent` (see the module doc)."""
    dense, multilingual = embedders.get(DENSE), embedders.get(DENSE_ML)
    if (
        not concurrent
        or dense is None
        or multilingual is None
        or len(batches) < 2
        or cpus < 2
        or not isinstance(dense, Sessioned)
        or not isinstance(multilingual, Throttled)
    ):
        yield from _one_after_the_other(embedders, batches, cpus)
        return
    single = dense.with_threads(1)
    ml = multilingual

    def pick_ml(alone: bool) -> Embedder:
        ml.set_threads(cpus if alone else 1)
        return multilingual

    stop = threading.Event()
    lanes = {
        DENSE: _Lane(DENSE, lambda alone: dense if alone else single, batches, stop),
        DENSE_ML: _Lane(DENSE_ML, pick_ml, batches, stop),
    }
    lanes[DENSE].other, lanes[DENSE_ML].other = lanes[DENSE_ML], lanes[DENSE]
    for lane in lanes.values():
        lane.start()
    try:
        for i in range(len(batches)):
            yield {name: lane.take(i) for name, lane in lanes.items()}
    finally:
        stop.set()  # a consumer that stopped early (a maintain interrupted) stops the lanes
        for lane in lanes.values():
            lane.join()
        ml.set_threads(1)
