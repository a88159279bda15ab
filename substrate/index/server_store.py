"""`ServerStore`: a collection on a Qdrant server (the scale-out path) through
qdrant-client, or its `":memory:"` local mode in tests.

With a `tenant`, many workspaces share one collection (one per embedding
configuration), and this class is the one place that keeps them apart:
`_scope` adds the tenant to every filter (search, scroll, count, delete),
every point carries it in its payload and in its id (two workspaces' pages
of one slug are two points), and a reset or drop deletes the tenant's points
alone. The `tenant` payload index is the collection's tenant key, and HNSW
links points within a tenant only (`payload_m`, global `m=0`): a search
walks its own workspace's graph, never a pooled one. BM25's IDF is applied
in the query (`idf_in_query`) from the workspace's own statistics: the
store's IDF modifier would count every tenant's documents.
"""

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
TENANT = "tenant"  # the payload key every point of a shared collection carries
PAYLOAD_M = 16  # HNSW links within a tenant's points (the global graph has none)
# A purge asks the server to vacuum any segment with a deleted point (its
# defaults, a fifth deleted and 1,000 points, leave a small store's deleted
# payloads on disk for good).
VACUUM_DELETED = 0.0001
VACUUM_MIN_VECTORS = 100


class ServerStore:
    """A collection on a Qdrant server (or qdrant-client's local mode) via
    qdrant-client; a `tenant`'s share of a collection when one is given.
    `client`: an open client to use instead of connecting (a process serving
    many workspaces keeps one; local mode shares its collections only so).
    `replication`: copies of each shard on a cluster, set when the collection
    is made."""

    def __init__(
        self,
        location: str,
        collection: str,
        api_key: str | None = None,
        tenant: str | None = None,
        client: Any = None,
        replication: int = 1,
    ) -> None:
        from qdrant_client import QdrantClient, models

        self._models = models
        self._name = collection
        self._tenant = tenant
        self._replication = replication
        self.idf_in_query = tenant is not None
        self._exact = location == ":memory:"  # local mode: brute force, no beam to set
        self._owns_client = client is None
        try:
            if client is not None:
                self._client = client
            elif location == ":memory:":
                self._client = QdrantClient(location=":memory:")
            else:
                self._client = QdrantClient(url=location, api_key=api_key)
        except Exception as exc:  # noqa: BLE001 - connection errors come in many types
            raise StoreUnavailableError(f"cannot reach Qdrant at {location}: {exc}") from None

    @property
    def quantization(self) -> str | None:
        return None  # a server's collection keeps its own settings

    def _create(self, dims: Dims) -> None:
        m = self._models
        shared = self._tenant is not None
        self._client.create_collection(
            self._name,
            vectors_config={
                name: m.VectorParams(size=dim, distance=m.Distance.COSINE)
                for name, dim in dims.items()
            },
            sparse_vectors_config={
                SPARSE: m.SparseVectorParams(modifier=None if shared else m.Modifier.IDF)
            },
            hnsw_config=m.HnswConfigDiff(m=0, payload_m=PAYLOAD_M) if shared else None,
            replication_factor=self._replication,
        )
        with warnings.catch_warnings():
            # Local mode warns that payload indexes have no effect there; a server uses them.
            warnings.simplefilter("ignore", UserWarning)
            if shared:
                schema = m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, is_tenant=True)
                self._client.create_payload_index(self._name, TENANT, schema)
            for field in ("slug", "kind"):
                self._client.create_payload_index(self._name, field, m.PayloadSchemaType.KEYWORD)

    def _check_shared(self, dims: Dims) -> None:
        """A shared collection must hold vectors of these sizes: one collection per
        embedding configuration, named by the config."""
        info = self._client.get_collection(self._name)
        vectors = info.config.params.vectors
        found = {name: params.size for name, params in (vectors or {}).items()}
        if found != dict(dims):
            raise StoreUnavailableError(
                f"collection {self._name!r} holds vectors {found}, this workspace's models make "
                f"{dict(dims)}: give workspaces with other models another "
                "[memory.substrate.qdrant] collection"
            )

    def reset(self, dims: Dims) -> None:
        if self._tenant is None:
            if self._client.collection_exists(self._name):
                self._client.delete_collection(self._name)
            self._create(dims)
            return
        self.ensure(dims)
        self.drop()

    def ensure(self, dims: Dims) -> None:
        if not self._client.collection_exists(self._name):
            self._create(dims)
        elif self._tenant is not None:
            self._check_shared(dims)

    def _id(self, slug: str, chunk: int) -> str:
        return point_id(slug if self._tenant is None else f"{self._tenant}\0{slug}", chunk)

    def _scope(self, *conditions: Any) -> Any:
        """The one filter every read, count and delete goes through: these
        conditions, and this tenant's points alone."""
        m = self._models
        must = list(conditions)
        if self._tenant is not None:
            must.append(m.FieldCondition(key=TENANT, match=m.MatchValue(value=self._tenant)))
        return m.Filter(must=must) if must else None

    def upsert(self, points: list[IndexPoint]) -> None:
        m = self._models
        tenant = {} if self._tenant is None else {TENANT: self._tenant}
        batch = [
            m.PointStruct(
                id=self._id(p.slug, p.chunk),
                vector={
                    **dense_lists(p.dense),
                    SPARSE: m.SparseVector(indices=p.sparse.indices, values=p.sparse.values),
                },
                payload={**p.payload, **tenant},
            )
            for p in points
        ]
        if batch:
            self._client.upsert(self._name, points=batch, wait=True)

    def set_sparse(self, vectors: list[tuple[str, int, SparseVector]]) -> None:
        m = self._models
        batch = [
            m.PointVectors(
                id=self._id(slug, chunk),
                vector={SPARSE: m.SparseVector(indices=v.indices, values=v.values)},
            )
            for slug, chunk, v in vectors
        ]
        if batch:
            self._client.update_vectors(self._name, points=batch, wait=True)

    def _slug_filter(self, slugs: list[str]) -> Any:
        m = self._models
        return self._scope(m.FieldCondition(key="slug", match=m.MatchAny(any=slugs)))

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
        kind_filter = self._scope(m.FieldCondition(key="kind", match=m.MatchAny(any=kinds)))
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
                self._name,
                scroll_filter=self._scope(),
                limit=2048,
                offset=offset,
                with_payload=["slug"],
            )
            for record in records:
                slug = str((record.payload or {}).get("slug"))
                counts[slug] = counts.get(slug, 0) + 1
            if offset is None:
                return counts

    def count(self) -> int:
        if not self._client.collection_exists(self._name):
            return 0
        return int(self._client.count(self._name, count_filter=self._scope(), exact=True).count)

    def flush(self) -> None:
        return None

    def optimize(self) -> None:
        return None  # the server optimizes in the background

    def compact(self) -> tuple[int, int]:
        """A server keeps its files to itself: ask it to vacuum every segment
        holding a deleted point (its optimizer rewrites them in the background).
        No bytes to report from here: (0, 0)."""
        if not self._client.collection_exists(self._name):
            return 0, 0
        vacuum = self._models.OptimizersConfigDiff(
            deleted_threshold=VACUUM_DELETED, vacuum_min_vector_number=VACUUM_MIN_VECTORS
        )
        try:
            self._client.update_collection(self._name, optimizers_config=vacuum)
        except Exception as exc:  # noqa: BLE001 - the client raises many kinds
            raise StoreUnavailableError(f"the Qdrant server refused to vacuum: {exc}") from None
        return 0, 0

    def drop(self) -> None:
        """Delete the collection, or the tenant's points in a shared one: a
        server's collections outlive the process that made them."""
        if not self._client.collection_exists(self._name):
            return
        if self._tenant is None:
            self._client.delete_collection(self._name)
            return
        selector = self._models.FilterSelector(filter=self._scope())
        self._client.delete(self._name, points_selector=selector, wait=True)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()
