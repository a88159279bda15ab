"""A big embedded index gets an HNSW graph built off the request path: the live
points copied into a shard of its own, the graph built by a child process,
the pages written meanwhile copied again, and the folders swapped; searches
answer throughout and find what the exact scan finds."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import numpy as np

from substrate.index.approximate import build_in_child
from substrate.index.bm25 import SparseVector, term_id
from substrate.index.qdrant_edge import EdgeStore
from substrate.index.store import DENSE, IndexPoint

DIM = 32
WORD = term_id("boiler")


def point(slug: str, rng: np.random.Generator) -> IndexPoint:
    vector = rng.standard_normal(DIM).astype(np.float32)
    vector /= np.linalg.norm(vector)
    payload = {"slug": slug, "chunk": 0, "kind": "page", "text": slug}
    return IndexPoint(slug, 0, {DENSE: vector}, SparseVector([WORD], [1.0]), payload)


def nearest(store: EdgeStore, vector: np.ndarray) -> list[str]:
    found = store.search({DENSE: vector}, SparseVector([], []), 5, ["page"])[DENSE]
    return [h.payload["slug"] for h in found]


def test_the_graph_is_built_aside_and_swapped_in_with_the_writes_made_meanwhile(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(7)
    store = EdgeStore(tmp_path / "qdrant")
    store.ensure({DENSE: DIM})
    points = [point(f"notes/n{n}", rng) for n in range(1500)]
    for start in range(0, len(points), 500):
        store.upsert(points[start : start + 500])
    queries = [p.dense[DENSE] for p in random.Random(3).sample(points, 20)]
    exact = [nearest(store, q) for q in queries]
    assert not store.approximate
    fresh = store.begin_approximate()
    added = [point(f"notes/late{n}", rng) for n in range(30)]
    gone = [p.slug for p in points[:25]]
    writer = threading.Thread(target=lambda: (store.upsert(added), store.delete_slugs(gone)))
    writer.start()  # written while the graph is built: copied again at the swap
    build_in_child(fresh)
    writer.join()
    for q, before in zip(queries, exact, strict=True):  # the exact scan answers meanwhile
        assert nearest(store, q)[0] == next(s for s in before if s not in gone)
    assert store.finish_approximate(fresh) == len(added) + len(gone)
    assert store.approximate
    assert store.count() == len(points) + len(added) - len(gone)
    for q, before in zip(queries, exact, strict=True):
        now = nearest(store, q)
        assert now[0] == next(s for s in before if s not in gone)  # the same nearest page
    assert nearest(store, added[3].dense[DENSE])[0] == "notes/late3"
    assert not any(slug in gone for q in queries for slug in nearest(store, q))
    store.close()
    reopened = EdgeStore(tmp_path / "qdrant")
    assert reopened.approximate and reopened.count() == store_count(points, added, gone)
    reopened.close()


def store_count(points: list[IndexPoint], added: list[IndexPoint], gone: list[str]) -> int:
    return len(points) + len(added) - len(gone)


def test_a_failed_build_leaves_the_exact_shard_as_it_was(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    store = EdgeStore(tmp_path / "qdrant")
    store.ensure({DENSE: DIM})
    store.upsert([point(f"notes/n{n}", rng) for n in range(50)])
    fresh = store.begin_approximate()
    (fresh / "edge_config.json").write_text("not json")  # the child cannot load it
    try:
        build_in_child(fresh)
    except RuntimeError as exc:
        assert "the graph build failed" in str(exc)
        store.abandon_approximate(fresh)
    else:
        raise AssertionError("a broken folder built")
    assert not fresh.exists() and not store.approximate and store.count() == 50
    store.close()
