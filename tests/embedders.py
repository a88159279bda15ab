"""Test doubles on the `Embedder` Protocol: they live here, never in product code."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from substrate.index import Vectors


class HashingEmbedder:
    """A deterministic bag-of-words embedder for fast unit tests (same Protocol).

    Texts sharing words get similar vectors, so ranking logic can be tested
    without loading a model; integration tests and benchmarks use the real one.
    """

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim

    @property
    def identity(self) -> str:
        return f"hashing-bow;dim={self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return 256

    def _vector(self, text: str) -> Vectors:
        vec = np.zeros(self._dim, dtype=np.float32)
        for word in text.lower().split():
            vec[zlib.crc32(word.strip(".,;:!?").encode()) % self._dim] += 1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return (
            np.stack([self._vector(t) for t in texts])
            if texts
            else np.zeros((0, self._dim), np.float32)
        )

    def embed_query(self, text: str) -> Vectors:
        return self._vector(text)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.embed_documents(texts)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]
