"""`EdgeStore`: Qdrant Edge in-process, the embedded default `VectorStore`.

No HNSW graph (`m=0`): exact search is a few ms at 10k points and the graph
build would hold the GIL. WAL on, which is also what locks out a second
process. Searches hold the GIL too, and turning each of ~300 hits' payloads
into Python objects was over half of a search (4.6 ms against 2.1 at 10k
pages): so a search asks for ids and scores only, names each hit's page from
an in-memory id -> (slug, kind) map (built by one scroll on first search,
kept in step by every upsert and delete), and `full_payloads` fetches the few
payloads the fused results show.

Qdrant marks a deleted point and vacuums only big segments, so in a personal
store a deleted payload stays in its files. `compact` copies the live points
(vectors as stored, nothing re-embedded) into a new shard beside the old one,
swaps the folders, and removes the old one with every deleted byte in it; the
swap waits for the searches in flight (`_Gate`) and holds new ones for the
moment it takes.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np

from substrate.errors import (
    IndexDamagedError,
    MemoryServiceError,
    StoreHeldError,
    StoreUnavailableError,
)
from substrate.index.approximate import Approximating, graph_config
from substrate.index.bm25 import SparseVector
from substrate.index.embedding import Vectors
from substrate.index.store import SPARSE, Dims, IndexPoint, StoreHit, dense_lists, point_id
from substrate.safety import folder_bytes, read_regular_file, require_room

# Qdrant Edge maps its segment files: writing one on a full disk is a SIGBUS that
# kills the process with nothing printed. Refuse before touching it instead.
MIN_FREE_BYTES = 64 * 1024 * 1024


def check_free_space(folder: Path, needed: int = MIN_FREE_BYTES) -> None:
    """Refuse with one clear error when the disk holding `folder` is (nearly) full."""
    require_room(folder, needed, "the embedded index (it maps its files)")


OVERSAMPLING = 2.0  # int8 candidates per result, rescored with the full vectors
CONFIG_BYTES = 64 * 1024  # a shard's edge_config.json is a few hundred bytes


F = TypeVar("F", bound=Callable[..., Any])


def _shared(method: F) -> F:
    """The method runs with the shard in shared use: never while it is swapped. A
    failure inside the shard (qdrant-edge raises bare `Exception`, and a Rust
    panic over a damaged file is a `BaseException`) comes out as
    `IndexDamagedError`, with no path of this machine in it."""

    @functools.wraps(method)
    def wrapper(self: EdgeStore, *args: Any, **kwargs: Any) -> Any:
        with self._gate.shared():
            try:
                return method(self, *args, **kwargs)
            except MemoryServiceError:
                raise
            except BaseException as exc:
                if not _from_the_shard(exc):
                    raise
                raise IndexDamagedError(f"the index failed: {scrub_paths(str(exc))}") from None

    return cast(F, wrapper)


def _from_the_shard(exc: BaseException) -> bool:
    """An error the shard raised (not an interrupt, not this program's own bug)."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError)):
        return False
    return type(exc).__name__ == "PanicException" or type(exc) is Exception


_AROUND_PATH = "'\"(),:;[]"


def scrub_paths(text: str) -> str:
    """`text` with absolute paths cut to their last part: an error goes to clients
    that have no business knowing this machine's folders."""
    return " ".join(_scrubbed(word) for word in text.split(" "))


def _scrubbed(word: str) -> str:
    start = word.find("/")
    head, path = word[:start], word[start:]
    if start < 0 or path.count("/") < 2 or (head and head[-1] not in _AROUND_PATH):
        return word
    end = len(path)
    while end and path[end - 1] in _AROUND_PATH:
        end -= 1
    return f"{head}…/{path[:end].rsplit('/', 1)[-1]}{path[end:]}"


class EdgeStore(Approximating):
    """Qdrant Edge shard at `path`; one process may hold it. A big one gets an
    HNSW graph built off the request path (`approximate`)."""

    def __init__(self, path: Path, quantization: str = "off") -> None:
        """`quantization` "int8": a shard made from now on also keeps the dense
        vectors as int8 in memory and scans them as such, each search's
        candidates rescored with the full vectors (`memory.substrate.
        dense_quantization`). A shard keeps what it was made with until a
        rebuild makes it again (`quantization` says which; doctor reports a
        shard that differs from the setting): changing the setting never
        re-embeds a workspace by itself."""
        import qdrant_edge as qe

        self._qe = qe
        self._path = path
        self._shown = f"{path.parent.name}/{path.name}"  # what an error may name
        self._wanted = quantization == "int8"
        self._quantized = self._wanted
        self._shard: Any = None
        self.idf_in_query = False  # one workspace's shard: its IDF is the workspace's
        self._points: _PointMap | None = None  # built on first search
        self._points_lock = threading.Lock()
        self._gate = _Gate()
        self._changed: set[str] | None = None  # pages written while a graph is built
        recover_compaction(path)
        if (path / "wal").exists():
            check_free_space(path)  # loading replays the WAL into mapped files
            self._shard = self._open(lambda: qe.EdgeShard.load(str(path)))
            self._quantized = _made_quantized(path)

    @property
    def quantization(self) -> str:
        return "int8" if self._quantized else "off"

    def _open(self, opener: Any) -> Any:
        try:
            return opener()
        except Exception as exc:  # noqa: BLE001 - qdrant-edge raises bare Exception
            if "WouldBlock" in str(exc):
                raise StoreHeldError(
                    f"the index ({self._shown}) is held by another process (is `memory serve` "
                    "running? then use the CLI against it, or stop it first)"
                ) from None
            raise StoreUnavailableError(
                f"cannot open the index ({self._shown}): {scrub_paths(str(exc))}"
            ) from None

    def _config(self, dims: Dims, approximate: bool = False) -> Any:
        qe = self._qe
        return qe.EdgeConfig(
            vectors={
                name: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)
                for name, dim in dims.items()
            },
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            hnsw_config=graph_config(qe, approximate),
            quantization_config=qe.ScalarQuantizationConfig(
                type=qe.ScalarType.Int8, always_ram=True
            )
            if self._quantized
            else None,
        )

    def _create(self, dims: Dims) -> None:
        qe = self._qe
        self._shard = self._open(lambda: qe.EdgeShard.create(str(self._path), self._config(dims)))
        self._indexed_fields(self._shard)

    def _indexed_fields(self, shard: Any) -> None:
        qe = self._qe
        for field in ("slug", "kind"):
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))

    def _dims(self) -> Dims:
        return _dims_of(self._path)

    def reset(self, dims: Dims) -> None:
        """An empty shard in place of this one, whatever state it was in (a damaged
        one may fail even to close: it is dropped all the same)."""
        with self._gate.exclusive():
            if self._shard is not None:
                try:
                    self._shard.close()
                except BaseException as exc:
                    if not _from_the_shard(exc):
                        raise
                self._shard = None
            shutil.rmtree(self._path, ignore_errors=True)
            with self._points_lock:
                self._points = _PointMap()
            self._quantized = self._wanted  # a shard made again takes the setting
            self._create(dims)

    def ensure(self, dims: Dims) -> None:
        if self._shard is None:
            self._create(dims)

    @_shared
    def upsert(self, points: list[IndexPoint]) -> None:
        qe = self._qe
        ids = [point_id(p.slug, p.chunk) for p in points]
        batch = [
            qe.Point(
                id=pid,
                vector={
                    **dense_lists(p.dense),
                    SPARSE: qe.SparseVector(indices=p.sparse.indices, values=p.sparse.values),
                },
                payload=p.payload,
            )
            for pid, p in zip(ids, points, strict=True)
        ]
        if batch:
            self._note([p.slug for p in points])
            self._shard.update(qe.UpdateOperation.upsert_points(batch))
            with self._points_lock:
                if self._points is not None:
                    for pid, p in zip(ids, points, strict=True):
                        self._points.add(uuid.UUID(pid), p.slug, str(p.payload["kind"]))

    @_shared
    def set_sparse(self, vectors: list[tuple[str, int, SparseVector]]) -> None:
        qe = self._qe
        batch = [
            qe.PointVectors(
                id=point_id(slug, chunk),
                vector={SPARSE: qe.SparseVector(indices=v.indices, values=v.values)},
            )
            for slug, chunk, v in vectors
        ]
        if batch and self._shard is not None:
            self._note(sorted({slug for slug, _, _ in vectors}))
            self._shard.update(qe.UpdateOperation.update_vectors(batch))

    def _slug_filter(self, slugs: list[str]) -> Any:
        qe = self._qe
        return qe.Filter(must=[qe.FieldCondition(key="slug", match=qe.MatchAny(slugs))])

    @_shared
    def delete_slugs(self, slugs: list[str]) -> None:
        if slugs and self._shard is not None:
            self._note(slugs)
            self._shard.update(
                self._qe.UpdateOperation.delete_points_by_filter(self._slug_filter(slugs))
            )
            with self._points_lock:
                if self._points is not None:
                    self._points.drop(slugs)

    def chunks_of(self, slugs: list[str]) -> Iterator[dict[str, Any]]:
        with self._gate.shared():
            found = self._payloads(slugs)
        yield from found

    def _payloads(self, slugs: list[str]) -> list[dict[str, Any]]:
        if not slugs or self._shard is None:
            return []
        out = []
        offset = None
        while True:
            request = self._qe.ScrollRequest(
                offset=offset, limit=512, filter=self._slug_filter(slugs), with_payload=True
            )
            records, offset = self._shard.scroll(request)
            out += [dict(record.payload or {}) for record in records]
            if offset is None:
                return out

    @_shared
    def search(
        self, dense: dict[str, Vectors], sparse: SparseVector, limit: int, kinds: list[str]
    ) -> dict[str, list[StoreHit]]:
        if self._shard is None:
            return {}
        qe = self._qe
        points = self._point_map()
        # The filter costs a third of a search: only when some stored kind is unwanted.
        kind_filter = (
            None
            if points.kinds() <= set(kinds)
            else qe.Filter(must=[qe.FieldCondition(key="kind", match=qe.MatchAny(kinds))])
        )
        queries: dict[str, Any] = {
            name: qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=name)
            for name, vector in dense.items()
        }
        if sparse.indices:
            queries[SPARSE] = qe.Query.Nearest(
                qe.SparseVector(indices=sparse.indices, values=sparse.values), using=SPARSE
            )
        rescore = qe.QuantizationSearchParams(rescore=True, oversampling=OVERSAMPLING)
        rescored = self.search_params(rescore if self._quantized else None)
        requests = [
            qe.QueryRequest(
                limit=limit,
                query=query,
                filter=kind_filter,
                with_payload=False,
                params=rescored if name != SPARSE else None,
            )
            for name, query in queries.items()
        ]
        results = self._shard.query_batch(qe.QueryBatchRequest(requests))
        out: dict[str, list[StoreHit]] = {}
        for name, found in zip(queries, results, strict=True):
            hits = []
            for p in found:
                named = points.get(p.id)
                if named is not None:  # None: upserted by another thread a moment ago
                    hits.append(StoreHit(p.score, {"slug": named[0], "kind": named[1]}, p.id))
            out[name] = hits
        return out

    @_shared
    def nearest_in(
        self, name: str, vector: Vectors, slugs: list[str], limit: int
    ) -> list[StoreHit]:
        if not slugs or self._shard is None:
            return []
        qe = self._qe
        query = qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=name)
        request = qe.QueryRequest(
            limit=limit, query=query, filter=self._slug_filter(slugs), with_payload=True
        )
        (found,) = self._shard.query_batch(qe.QueryBatchRequest([request]))
        return [StoreHit(p.score, dict(p.payload or {}), p.id) for p in found]

    @_shared
    def full_payloads(self, hits: list[StoreHit]) -> list[dict[str, Any]]:
        wanted = [h.point for h in hits if h.point is not None]
        records = self._shard.retrieve(wanted, True, False) if wanted and self._shard else []
        found = {r.id: dict(r.payload or {}) for r in records}
        return [found.get(h.point, h.payload) for h in hits]

    def _point_map(self) -> _PointMap:
        with self._points_lock:
            if self._points is None:
                self._points = self._scan_points()
            return self._points

    def _scan_points(self) -> _PointMap:
        qe = self._qe
        points = _PointMap()
        offset = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=2048,
                with_payload=qe.PayloadSelector.Include(["slug", "kind"]),
            )
            records, offset = self._shard.scroll(request)
            for r in records:
                payload = r.payload or {}
                points.add(r.id, str(payload.get("slug")), str(payload.get("kind")))
            if offset is None:
                return points

    @_shared
    def slug_counts(self) -> dict[str, int]:
        if self._shard is None:
            return {}
        qe = self._qe
        counts: dict[str, int] = {}
        offset = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=4096, with_payload=qe.PayloadSelector.Include(["slug"])
            )
            records, offset = self._shard.scroll(request)
            for r in records:
                slug = str((r.payload or {}).get("slug"))
                counts[slug] = counts.get(slug, 0) + 1
            if offset is None:
                return counts

    @_shared
    def count(self) -> int:
        if self._shard is None:
            return 0
        return int(self._shard.count(self._qe.CountRequest(exact=True)))

    @_shared
    def flush(self) -> None:
        if self._shard is not None:
            self._shard.flush()

    @_shared
    def optimize(self) -> None:
        """Compact segments. Holds the GIL for its whole run: boot or idle only."""
        if self._shard is not None:
            self._shard.optimize()

    def close(self) -> None:
        with self._gate.exclusive():
            if self._shard is not None:
                self._shard.close()
                self._shard = None
            self._points = None

    def compact(self) -> tuple[int, int]:
        """Rewrite the shard with its live points alone (see the module doc);
        (bytes on disk before, after). Call with writes held off (the index's
        maintenance lock): a point upserted during the copy would be lost. The
        rewritten shard scans exactly; a big one's graph is built again off the
        request path (`approximate`)."""
        if self._shard is None:
            return 0, 0
        qe = self._qe
        before = folder_bytes(self._path)
        check_free_space(self._path.parent, MIN_FREE_BYTES + before)
        fresh_path, old_path = _compaction_paths(self._path)
        for leftover in (fresh_path, old_path):
            shutil.rmtree(leftover, ignore_errors=True)
        with self._gate.shared():
            self._shard.flush()
            fresh = self._open(
                lambda: qe.EdgeShard.create(str(fresh_path), self._config(_dims_of(self._path)))
            )
            try:
                self._indexed_fields(fresh)
                self._copy_into(fresh)
                fresh.flush()
            finally:
                fresh.close()
        with self._gate.exclusive():
            self._shard.close()
            self._shard = None
            os.rename(self._path, old_path)
            os.rename(fresh_path, self._path)
            self._shard = self._open(lambda: qe.EdgeShard.load(str(self._path)))
            with self._points_lock:
                self._points = None
        shutil.rmtree(old_path, ignore_errors=True)
        return before, folder_bytes(self._path)

    def _copy_into(self, fresh: Any, filter: Any = None) -> None:
        qe = self._qe
        offset = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=COPY_BATCH, filter=filter, with_payload=True, with_vector=True
            )
            records, offset = self._shard.scroll(request)
            batch = [
                qe.Point(id=r.id, vector=dict(r.vector or {}), payload=dict(r.payload or {}))
                for r in records
            ]
            if batch:
                fresh.update(qe.UpdateOperation.upsert_points(batch))
            if offset is None:
                return


COPY_BATCH = 512


def _dims_of(path: Path) -> dict[str, int]:
    """The dense vectors' sizes, as the shard at `path` records its config."""
    try:
        config = json.loads(read_regular_file(path / "edge_config.json", CONFIG_BYTES))
        return {str(k): int(v["size"]) for k, v in dict(config["vectors"]).items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreUnavailableError(f"cannot read the index's config at {path}: {exc}") from None


class _Gate:
    """Many users of the shard at once, or one swap of it alone: `shared` for
    every search and write, `exclusive` while the shard is replaced."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._users = 0
        self._swapping = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._swapping:
                self._cond.wait()
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            while self._swapping:
                self._cond.wait()
            self._swapping = True
            while self._users:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._swapping = False
                self._cond.notify_all()


class _PointMap:
    """Point id -> (slug, kind), with each slug's ids for deletes and a count per kind."""

    def __init__(self) -> None:
        self._named: dict[Any, tuple[str, str]] = {}
        self._by_slug: dict[str, set[Any]] = {}
        self._kinds: dict[str, int] = {}

    def get(self, point: Any) -> tuple[str, str] | None:
        return self._named.get(point)

    def kinds(self) -> set[str]:
        return {kind for kind, n in self._kinds.items() if n > 0}

    def add(self, point: Any, slug: str, kind: str) -> None:
        old = self._named.get(point)
        if old is not None:
            self._kinds[old[1]] -= 1
        self._named[point] = (slug, kind)
        self._by_slug.setdefault(slug, set()).add(point)
        self._kinds[kind] = self._kinds.get(kind, 0) + 1

    def drop(self, slugs: list[str]) -> None:
        for slug in slugs:
            for point in self._by_slug.pop(slug, ()):
                _, kind = self._named.pop(point)
                self._kinds[kind] -= 1


def _made_quantized(path: Path) -> bool:
    """Whether the shard at `path` was made with int8 copies of its vectors (its
    own record of its config, `edge_config.json`)."""
    try:
        config = json.loads(read_regular_file(path / "edge_config.json", CONFIG_BYTES))
    except (OSError, ValueError):
        return False  # no readable record: searched as made without
    return isinstance(config, dict) and bool(config.get("quantization_config"))


def _compaction_paths(path: Path) -> tuple[Path, Path]:
    """(the fresh copy a compaction writes, the old shard it moves aside)."""
    return path.with_name(path.name + ".compacting"), path.with_name(path.name + ".compacted")


def compaction_leftovers(path: Path) -> list[Path]:
    """What a compaction killed midway left beside the shard: the old shard it
    moved aside still holds every point a forget or a purge took out."""
    return [p for p in _compaction_paths(path) if p.exists()]


def recover_compaction(path: Path) -> None:
    """Finish or undo a compaction a kill cut short, before the shard opens: a
    fresh copy already complete (the shard moved aside, the copy not yet in its
    place) becomes the shard; the old shard and a partial copy are removed, so
    the forgotten points the old one held are gone from disk."""
    fresh, old = _compaction_paths(path)
    if not path.exists() and fresh.exists() and old.exists():
        os.rename(fresh, path)
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
