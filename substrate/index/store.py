"""The Qdrant collection behind one small `VectorStore` Protocol: its schema,
point ids and the hit types both adapters answer with.

Schema (both adapters): named dense vectors (cosine) — `dense` (the English
model) and, when configured, `dense_ml` (the multilingual one) — and the sparse
vector `bm25` with Qdrant's IDF modifier, payload `slug`, `title`, `kind`
(`page` | `capability` | `history`: a chunk of a page's facts none of which is
current any more), `fresh_at` (epoch seconds or null), `chunk`, `text`,
`source`, with keyword indexes on `slug` and `kind`. Point ids are
uuid5(slug#chunk), so re-embedding is an idempotent upsert.

The adapters: `EdgeStore` (Qdrant Edge in-process, the embedded default;
`qdrant_edge`) and `ServerStore` (qdrant-client against a server, or its
`":memory:"` mode in tests; `server_store`). Both answer one query per signal
(each dense vector, then BM25) in a single batch; fusion is the caller's, so
it can report each signal's rank.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from substrate.index.bm25 import SparseVector
from substrate.index.embedding import Vectors

DENSE = "dense"
DENSE_ML = "dense_ml"
SPARSE = "bm25"
HISTORY = "history"  # the kind of a page chunk whose facts are all no longer current
Dims = dict[str, int]  # dense vector name -> dimension
POINT_NAMESPACE = uuid.UUID("6f1c2d8e-5d0b-4c43-9a55-3f1f4e2b7a10")


def dense_lists(vectors: dict[str, Vectors]) -> dict[str, list[float]]:
    return {name: np.asarray(v, dtype=np.float32).tolist() for name, v in vectors.items()}


def point_id(slug: str, chunk: int) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, f"{slug}#{chunk}"))


@dataclass(frozen=True)
class IndexPoint:
    slug: str
    chunk: int
    dense: dict[str, Vectors]  # vector name -> this chunk's vector
    sparse: SparseVector
    payload: dict[str, Any]


@dataclass(frozen=True)
class StoreHit:
    """`payload` holds at least `slug` and `kind`; `full_payloads` gives the rest."""

    score: float
    payload: dict[str, Any]
    point: Any = None  # the store's id for the point, when the payload is partial


class VectorStore(Protocol):
    # Whether a query's BM25 vector must carry each term's IDF (a collection
    # shared by many workspaces, whose own IDF would pool them all).
    idf_in_query: bool

    @property
    def quantization(self) -> str | None:
        """How the dense vectors are kept: "int8" or "off" as the store was made
        (fixed until a rebuild), or None where the setting does not apply."""
        ...

    def reset(self, dims: Dims) -> None:
        """Drop every point and (re)create the schema with these dense vectors."""
        ...

    def ensure(self, dims: Dims) -> None:
        """Create the schema if it does not exist yet."""
        ...

    def upsert(self, points: list[IndexPoint]) -> None: ...

    def delete_slugs(self, slugs: list[str]) -> None: ...

    def set_sparse(self, vectors: list[tuple[str, int, SparseVector]]) -> None:
        """Replace the BM25 vector of these (slug, chunk) points, nothing else."""
        ...

    def chunks_of(self, slugs: list[str]) -> Iterator[dict[str, Any]]:
        """Payloads of every stored chunk of these pages."""
        ...

    def search(
        self, dense: dict[str, Vectors], sparse: SparseVector, limit: int, kinds: list[str]
    ) -> dict[str, list[StoreHit]]:
        """Hits per signal (each dense vector name, and `bm25` when the query has
        terms), best first, restricted to `kinds`."""
        ...

    def nearest_in(
        self, name: str, vector: Vectors, slugs: list[str], limit: int
    ) -> list[StoreHit]:
        """The `limit` chunks of these pages nearest `vector` by dense vector `name`,
        best first, with whole payloads (a reranker's view of each page's best chunk)."""
        ...

    def full_payloads(self, hits: list[StoreHit]) -> list[dict[str, Any]]:
        """Each hit's whole payload (text, title, dates), in order; a point deleted
        since the search keeps the partial one."""
        ...

    def count(self) -> int: ...

    def slug_counts(self) -> dict[str, int]:
        """Stored points per slug (pages and capabilities), from a payload-only scroll."""
        ...

    def flush(self) -> None: ...

    def optimize(self) -> None: ...

    def compact(self) -> tuple[int, int]:
        """Rewrite the store with its live points alone, so no deleted point's
        bytes stay on disk; (bytes before, after) where the store can tell."""
        ...

    def close(self) -> None: ...
