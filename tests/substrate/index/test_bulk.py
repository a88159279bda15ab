"""Bulk embedding: both models busy at once, batches in order, the lane still
running given every core once the other is done, errors and early stops handled,
and the real models' vectors the same as the sequential path's."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from substrate.index import FastembedEmbedder, UseEmbedder, Vectors
from substrate.index.bulk import embed_batches
from substrate.index.store import DENSE, DENSE_ML
from tests.embedders import HashingEmbedder


class Recording(HashingEmbedder):
    """Records which thread embedded what, and with how many threads."""

    def __init__(self, dim: int, delay: float, log: list[tuple[str, str, int]]) -> None:
        super().__init__(dim)
        self.delay = delay
        self.log = log
        self.threads = 2
        self.fail_on: str | None = None

    def with_threads(self, threads: int) -> Recording:
        sibling = Recording(self.dim, self.delay, self.log)
        sibling.threads = threads
        sibling.fail_on = self.fail_on
        return sibling

    def set_threads(self, threads: int) -> None:
        self.threads = threads

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.fail_on in texts:
            raise ValueError("model broke")
        self.log.append((threading.current_thread().name, texts[0], self.threads))
        time.sleep(self.delay)
        return super().embed_documents(texts)


def batches(n: int) -> list[list[str]]:
    return [[f"batch {i} text", f"more words {i}"] for i in range(n)]


def test_the_two_models_run_side_by_side_and_batches_come_back_in_order() -> None:
    log: list[tuple[str, str, int]] = []
    fast, slow = Recording(16, 0.01, log), Recording(8, 0.03, log)
    out = list(embed_batches({DENSE: fast, DENSE_ML: slow}, batches(6), cpus=2, concurrent=True))
    assert len(out) == 6
    for i, vectors in enumerate(out):
        expected = HashingEmbedder(16).embed_documents(batches(6)[i])
        assert np.array_equal(vectors[DENSE], expected) and vectors[DENSE_ML].shape == (2, 8)
    names = {name for name, _, _ in log}
    assert names == {"embed-dense", "embed-dense_ml"}  # one lane each, not the caller
    dense_threads = [t for name, _, t in log if name == "embed-dense"]
    assert set(dense_threads) == {1}  # MiniLM's one-thread sibling while USE runs
    ml_threads = [t for name, _, t in log if name == "embed-dense_ml"]
    assert ml_threads[0] == 1 and ml_threads[-1] == 2  # USE gets both cores once alone
    assert slow.threads == 1  # and is put back afterwards


def test_one_batch_or_one_core_keeps_the_sequential_path() -> None:
    log: list[tuple[str, str, int]] = []
    models = {DENSE: Recording(16, 0, log), DENSE_ML: Recording(8, 0, log)}
    list(embed_batches(models, batches(1), cpus=2, concurrent=True))
    list(embed_batches(models, batches(3), cpus=1, concurrent=True))
    list(embed_batches(models, batches(3), cpus=2))
    assert {name for name, _, _ in log} == {threading.current_thread().name}


def test_one_after_the_other_the_multilingual_model_gets_every_core() -> None:
    log: list[tuple[str, str, int]] = []
    dense, ml = Recording(16, 0, log), Recording(8, 0, log)
    ml.threads = 1
    list(embed_batches({DENSE: dense, DENSE_ML: ml}, batches(3), cpus=2))
    assert ml.threads == 1  # put back afterwards
    assert [t for _, _, t in log][1::2] == [2, 2, 2]  # each USE call ran on both cores


def test_a_lane_that_fails_raises_in_the_caller() -> None:
    log: list[tuple[str, str, int]] = []
    broken = Recording(8, 0, log)
    broken.fail_on = "batch 2 text"
    with pytest.raises(ValueError, match="model broke"):
        list(embed_batches({DENSE: Recording(16, 0, log), DENSE_ML: broken}, batches(5), cpus=2))


def test_a_consumer_that_stops_early_stops_the_lanes() -> None:
    log: list[tuple[str, str, int]] = []
    stream = embed_batches(
        {DENSE: Recording(16, 0.01, log), DENSE_ML: Recording(8, 0.01, log)}, batches(50), 2, True
    )
    next(stream)
    stream.close()  # a maintain interrupted by a stopping service
    assert len(log) < 100
    assert not [t for t in threading.enumerate() if t.name.startswith("embed-")]


@pytest.mark.slow
def test_the_real_models_give_the_same_vectors_side_by_side(tmp_path: Path) -> None:
    minilm, use = FastembedEmbedder("all-MiniLM-L6-v2-int8", tmp_path), UseEmbedder(tmp_path)
    texts = [
        [f"page {i} about the garden, tomatoes and the {w}" for w in ("frost", "sun")]
        for i in range(4)
    ]
    side = list(embed_batches({DENSE: minilm, DENSE_ML: use}, texts, cpus=2, concurrent=True))
    alone = list(embed_batches({DENSE: minilm, DENSE_ML: use}, texts, cpus=2))
    use.set_threads(1)
    plain = [{DENSE: minilm.embed_documents(t), DENSE_ML: use.embed_documents(t)} for t in texts]
    for a, b in zip(plain, alone, strict=True):
        assert np.allclose(a[DENSE_ML], b[DENSE_ML], atol=1e-5)  # USE on 2 BLAS threads
    for a, b in zip(side, alone, strict=True):
        assert np.allclose(a[DENSE], b[DENSE], atol=1e-5)
        assert np.allclose(a[DENSE_ML], b[DENSE_ML], atol=1e-5)


def test_a_provider_this_onnxruntime_lacks_is_refused_by_name(tmp_path: Path) -> None:
    from substrate.errors import StoreUnavailableError

    model = FastembedEmbedder("all-MiniLM-L6-v2-int8", tmp_path, providers=["NoSuchProvider"])
    with pytest.raises(StoreUnavailableError, match="NoSuchProvider not available"):
        model.embed_documents(["a text"])
