"""Many workspaces in one Qdrant collection (qdrant-client's local mode, which
honours the filters): random writes, deletes, resets and drops over tenants
that share every slug, and no read ever answers with another tenant's point."""

from __future__ import annotations

import os
import random
import uuid

import numpy as np
from qdrant_client import QdrantClient

from substrate.index import ServerStore
from substrate.index.bm25 import SparseVector, term_id
from substrate.index.store import DENSE, IndexPoint

TENANTS = ("t0", "t1", "t2", "t3", "t4", "t5")
SLUGS = ("people/sam", "notes/plan", "home/boiler")
DIMS = {DENSE: 8}
OPS = int(os.environ.get("MEMORY_ISOLATION_OPS", "2000"))
WORD = term_id("boiler")


def point(tenant: str, slug: str, chunk: int, rng: random.Random) -> IndexPoint:
    vector = np.asarray([rng.random() for _ in range(DIMS[DENSE])], dtype=np.float32)
    return IndexPoint(
        slug,
        chunk,
        {DENSE: vector},
        SparseVector([WORD], [1.0 + rng.random()]),
        {"slug": slug, "chunk": chunk, "kind": "page", "text": f"owner {tenant}"},
    )


def test_no_read_answers_with_another_tenants_point() -> None:
    rng = random.Random(48)
    client = QdrantClient(location=":memory:")
    collection = f"test_{uuid.uuid4().hex}"
    stores = {t: ServerStore(":memory:", collection, tenant=t, client=client) for t in TENANTS}
    held: dict[str, dict[str, int]] = {t: {} for t in TENANTS}  # tenant -> slug -> chunks
    for store in stores.values():
        store.ensure(DIMS)
    for _ in range(OPS):
        tenant = rng.choice(TENANTS)
        store, model = stores[tenant], held[tenant]
        op = rng.choice(("upsert", "upsert", "delete", "read", "read", "reset"))
        slug = rng.choice(SLUGS)
        if op == "upsert":
            chunks = rng.randint(1, 3)
            store.delete_slugs([slug])
            store.upsert([point(tenant, slug, c, rng) for c in range(chunks)])
            model[slug] = chunks
        elif op == "delete":
            store.delete_slugs([slug])
            model.pop(slug, None)
        elif op == "reset" and rng.random() < 0.1:
            store.reset(DIMS)
            model.clear()
        query = np.asarray([rng.random() for _ in range(DIMS[DENSE])], dtype=np.float32)
        found = store.search({DENSE: query}, SparseVector([WORD], [1.0]), 50, ["page"])
        texts = {h.payload["text"] for hits in found.values() for h in hits}
        texts |= {p["text"] for p in store.chunks_of(list(SLUGS))}
        texts |= {h.payload["text"] for h in store.nearest_in(DENSE, query, list(SLUGS), 50)}
        assert texts <= {f"owner {tenant}"}, (tenant, texts)
        assert store.slug_counts() == model and store.count() == sum(model.values())
    for tenant, store in stores.items():  # a tenant dropped leaves no point behind
        store.drop()
        assert store.count() == 0
        others = sum(sum(held[t].values()) for t in TENANTS if t > tenant)
        total = client.count(collection, exact=True).count
        assert total == others
    client.close()
