"""`ServerStore`: a collection on a Qdrant server (the scale-out path) through
qdrant-client, or its `":memory:"` local mode in tests."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from substrate.errors import StoreUnavailableError
from substrate.index.bm25 import SparseVector
from substrate.index.embedding import Vectors
from substrate.index.store import SPARSE, Dims, IndexPoint, StoreHit, dense_lists, point_id

SEARCH_EF = 256  # the HNSW beam of every search: at least what k=50 fetches (5 * 50)


class ServerStore:
    """A collection on a Qdrant server (or qdrant-client's local mode) via qdrant-client."""

    def __init__(self, location: str, collection: str, api_key: str | None = None) -> None:
        from qdrant_client import QdrantClient, models

        self._models = models
        self._name = collection
        self._exact = location == ":memory:"  # local mode: brute force, no beam to set
        try:
            if location == ":memory:":
                self._client = QdrantClient(location=":memory:")
            else:
                self._client = QdrantClient(url=location, api_key=api_key)
        except Exception as exc:  # noqa: BLE001 - connection errors come in many types
            raise StoreUnavailableError(f"cannot reach Qdrant at {location}: {exc}") from None

    def _create(self, dims: Dims) -> None:
        m = self._models
        self._client.create_collection(
            self._name,
            vectors_config={
                name: m.VectorParams(size=dim, distance=m.Distance.COSINE)
                for name, dim in dims.items()
            },
            sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
        )
        with warnings.catch_warnings():
            # Local mode warns that payload indexes have no effect there; a server uses them.
            warnings.simplefilter("ignore", UserWarning)
            for field in ("slug", "kind"):
                self._client.create_payload_index(self._name, field, m.PayloadSchemaType.KEYWORD)

    def reset(self, dims: Dims) -> None:
        if self._client.collection_exists(self._name):
            self._client.delete_collection(self._name)
        self._create(dims)

    def ensure(self, dims: Dims) -> None:
        if not self._client.collection_exists(self._name):
            self._create(dims)

    def upsert(self, points: list[IndexPoint]) -> None:
        m = self._models
        batch = [
            m.PointStruct(
                id=point_id(p.slug, p.chunk),
                vector={
                    **dense_lists(p.dense),
                    SPARSE: m.SparseVector(indices=p.sparse.indices, values=p.sparse.values),
                },
                payload=p.payload,
            )
            for p in points
        ]
        if batch:
            self._client.upsert(self._name, points=batch, wait=True)

    def set_sparse(self, vectors: list[tuple[str, int, SparseVector]]) -> None:
        m = self._models
        batch = [
            m.PointVectors(
                id=point_id(slug, chunk),
                vector={SPARSE: m.SparseVector(indices=v.indices, values=v.values)},
            )
            for slug, chunk, v in vectors
        ]
        if batch:
            self._client.update_vectors(self._name, points=batch, wait=True)

    def _slug_filter(self, slugs: list[str]) -> Any:
        m = self._models
        return m.Filter(must=[m.FieldCondition(key="slug", match=m.MatchAny(any=slugs))])

    def delete_slugs(self, slugs: list[str]) -> None:
        if slugs and self._client.collection_exists(self._name):
            selector = self._models.FilterSelector(filter=self._slug_filter(slugs))
            self._client.delete(self._name, points_selector=selector, wait=True)

    def chunks_of(self, slugs: list[str]) -> Iterator[dict[str, Any]]:
        if not slugs or not self._client.collection_exists(self._name):
            return
        offset = None
        while True:
            records, offset = self._client.scroll(
                self._name,
                scroll_filter=self._slug_filter(slugs),
                limit=512,
                offset=offset,
                with_payload=True,
            )
            for record in records:
                yield dict(record.payload or {})
            if offset is None:
                return

    def search(
        self, dense: dict[str, Vectors], sparse: SparseVector, limit: int, kinds: list[str]
    ) -> dict[str, list[StoreHit]]:
        if not self._client.collection_exists(self._name):
            return {}
        m = self._models
        kind_filter = m.Filter(must=[m.FieldCondition(key="kind", match=m.MatchAny(any=kinds))])
        queries: dict[str, Any] = {
            name: np.asarray(vector, dtype=np.float32).tolist() for name, vector in dense.items()
        }
        if sparse.indices:
            queries[SPARSE] = m.SparseVector(indices=sparse.indices, values=sparse.values)
        # One beam width for every k: a wider beam for a bigger limit could change
        # the first chunks, and with them the first pages (`fusion.WINDOW`).
        params = None if self._exact else m.SearchParams(hnsw_ef=max(SEARCH_EF, limit))
        requests = [
            m.QueryRequest(
                query=query,
                using=name,
                limit=limit,
                filter=kind_filter,
                with_payload=True,
                params=params if name != SPARSE else None,
            )
            for name, query in queries.items()
        ]
        responses = self._client.query_batch_points(self._name, requests=requests)
        return {
            name: [StoreHit(p.score, dict(p.payload or {})) for p in response.points]
            for name, response in zip(queries, responses, strict=True)
        }

    def nearest_in(
        self, name: str, vector: Vectors, slugs: list[str], limit: int
    ) -> list[StoreHit]:
        if not slugs or not self._client.collection_exists(self._name):
            return []
        response = self._client.query_points(
            self._name,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            using=name,
            limit=limit,
            query_filter=self._slug_filter(slugs),
            with_payload=True,
        )
        return [StoreHit(p.score, dict(p.payload or {})) for p in response.points]

    def full_payloads(self, hits: list[StoreHit]) -> list[dict[str, Any]]:
        return [h.payload for h in hits]  # searches here return whole payloads

    def slug_counts(self) -> dict[str, int]:
        if not self._client.collection_exists(self._name):
            return {}
        counts: dict[str, int] = {}
        offset = None
        while True:
            records, offset = self._client.scroll(
                self._name, limit=2048, offset=offset, with_payload=["slug"]
            )
            for record in records:
                slug = str((record.payload or {}).get("slug"))
                counts[slug] = counts.get(slug, 0) + 1
            if offset is None:
                return counts

    def count(self) -> int:
        if not self._client.collection_exists(self._name):
            return 0
        return int(self._client.count(self._name, exact=True).count)

    def flush(self) -> None:
        return None

    def optimize(self) -> None:
        return None  # the server optimizes in the background

    def drop(self) -> None:
        """Delete the collection: a server's collections outlive the process that made them."""
        if self._client.collection_exists(self._name):
            self._client.delete_collection(self._name)

    def close(self) -> None:
        self._client.close()
