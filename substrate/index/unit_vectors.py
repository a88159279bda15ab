"""Owns `.substrate/units/`: each page's unit vectors, for choosing a card's lead
by meaning.

A chunk's dense score says which chunk answers a turn; it cannot say which
fact inside the chunk does, and term overlap alone picks a wrong line when
the turn shares no word with its fact. So maintenance embeds every unit of a
page (`units`) with the multilingual model (the cheaper of the two, and one
that reads any language) and keeps them in one small file per page: unit
keys and float16 vectors, with the page's content hash, written atomically.
The card reads the files of the pages it shows (tens of microseconds each,
and the newest are kept in memory). Derived state: a page without a file is
shown by term overlap alone, and the next maintain writes it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from substrate.errors import InvalidInputError
from substrate.index.chunk_vectors import ChunkVectors
from substrate.index.chunks import Chunk
from substrate.index.embedding import Embedder
from substrate.index.excerpts import chunk_excerpt
from substrate.index.units import split_units, unit_key
from substrate.safety.safe_files import read_regular_file, write_atomic

KEPT = 256  # pages whose vectors stay in memory
HASH_BYTES = 64
MAX_FILE_BYTES = 4 * 1024 * 1024
COMPLETE = "units-complete"  # the marker: every indexed page has its file
BATCH = 64
Loaded = tuple[np.ndarray, np.ndarray]  # keys (int64), unit vectors (float32, unit length)
Page = tuple[str, list[Chunk], str]  # title, chunks, content hash


class UnitVectors:
    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._kept: OrderedDict[tuple[str, str], Loaded] = OrderedDict()
        self._lock = threading.Lock()
        self._embedded = ChunkVectors()  # a unit's vector, by its text

    def index_pages(self, pages: dict[str, Page], model: Embedder, cpus: int) -> None:
        """Embed every unit of these pages (those of a page seen before come from
        memory) and write each page's file."""
        units = {
            slug: list(
                dict.fromkeys(u for c in chunks for u in split_units(chunk_excerpt(c.text, title)))
            )
            for slug, (title, chunks, _) in pages.items()
        }
        texts = list(dict.fromkeys(u for found in units.values() for u in found))
        batches = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
        vectors: dict[str, np.ndarray] = {}
        for batch, embedded in zip(
            batches, self._embedded.embed({"unit": model}, batches, cpus, False), strict=True
        ):
            rows = np.asarray(embedded["unit"], dtype=np.float32)
            rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
            vectors.update(zip(batch, rows, strict=True))
        for slug, found in units.items():
            stacked = np.stack([vectors[u] for u in found]) if found else np.zeros((0, model.dim))
            self.write(slug, pages[slug][2], [unit_key(u) for u in found], stacked)

    def complete(self, marker: str = COMPLETE) -> bool:
        """Whether `marker` was written: every doc of its kind has its file."""
        return (self._folder / marker).is_file()

    def mark_complete(self, marker: str = COMPLETE) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self._folder / marker, b"", durable=False)

    @property
    def folder(self) -> Path:
        return self._folder

    def path(self, slug: str) -> Path:
        name = hashlib.sha1(slug.encode("utf-8")).hexdigest()
        return self._folder / f"{name}.units"

    def write(self, slug: str, content_hash: str, keys: list[int], vectors: np.ndarray) -> None:
        """One file: the content hash (64 ASCII bytes), the unit count and the
        vector size (uint32 each), the keys (int64), the vectors (float16)."""
        self._folder.mkdir(parents=True, exist_ok=True)
        rows = np.asarray(vectors, dtype=np.float16)
        dim = rows.shape[1] if rows.ndim == 2 and len(keys) else 0
        head = content_hash.encode("ascii").ljust(HASH_BYTES)[:HASH_BYTES]
        sizes = np.asarray([len(keys), dim], dtype=np.uint32).tobytes()
        body = np.asarray(keys, dtype=np.int64).tobytes() + rows.tobytes()
        write_atomic(self.path(slug), head + sizes + body, durable=False)

    def read(self, slug: str, content_hash: str | None) -> Loaded | None:
        """The page's unit keys and vectors when its file is of this content
        (None: whatever content it is of; read from disk each time)."""
        if content_hash is None:
            return self._load(slug, None)
        with self._lock:
            found = self._kept.get((slug, content_hash))
            if found is not None:
                self._kept.move_to_end((slug, content_hash))
                return found
        loaded = self._load(slug, content_hash)
        if loaded is not None:
            with self._lock:
                self._kept[(slug, content_hash)] = loaded
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return loaded

    def _load(self, slug: str, content_hash: str | None) -> Loaded | None:
        try:
            data = read_regular_file(self.path(slug), MAX_FILE_BYTES)
        except (OSError, InvalidInputError):
            return None  # missing: the turn's words alone
        if content_hash is not None and data[:HASH_BYTES].rstrip(b" ") != content_hash.encode(
            "ascii"
        ):
            return None  # of an older version of the page
        count, dim = np.frombuffer(data, np.uint32, 2, HASH_BYTES).tolist()
        at = HASH_BYTES + 8
        if len(data) != at + count * 8 + count * dim * 2:
            return None  # torn or of another layout
        if count == 0:
            return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
        keys = np.frombuffer(data, np.int64, count, at)
        vectors = np.frombuffer(data, np.float16, count * dim, at + count * 8)
        return keys, vectors.reshape(count, dim).astype(np.float32)

    def has(self, slug: str, content_hash: str) -> bool:
        return self.read(slug, content_hash) is not None

    def delete(self, slugs: list[str]) -> None:
        for slug in slugs:
            self.path(slug).unlink(missing_ok=True)

    def keep_only(self, slugs: Collection[str]) -> int:
        """Remove every page's file but these pages' (a purge: a removed page's
        vectors go with it); how many files went."""
        wanted = {self.path(slug).name for slug in slugs}
        try:
            found = [e.path for e in os.scandir(self._folder) if e.name.endswith(".units")]
        except FileNotFoundError:
            return 0
        gone = [Path(p) for p in found if Path(p).name not in wanted]
        for path in gone:
            path.unlink(missing_ok=True)
        with self._lock:
            self._kept.clear()
        return len(gone)

    def clear(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)
        with self._lock:
            self._kept.clear()

    def scores(
        self, query: np.ndarray, pages: Sequence[tuple[str, str | None]]
    ) -> dict[str, dict[int, float]]:
        """Each page's units by key -> cosine with the turn (pages with a file)."""
        q = np.asarray(query, dtype=np.float32)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        out: dict[str, dict[int, float]] = {}
        for slug, content_hash in pages:
            loaded = self.read(slug, content_hash)
            if loaded is not None and len(loaded[0]):  # a page with no current fact has none
                keys, vectors = loaded
                out[slug] = dict(zip(keys.tolist(), (vectors @ q).tolist(), strict=True))
        return out
