"""Sparse vectors that stay true as the corpus grows.

A chunk's BM25 vector bakes in the corpus's average chunk length (avgdl) at
the moment it was written: tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)). After
an ingest doubles the corpus with longer (or shorter) pages, the old chunks
are normalised against an avgdl that no longer holds, and score differently
from the same chunks in a freshly built index. So every stored vector shares
one avgdl (the index state's `sparse_avgdl`): new chunks are written at it,
and when the corpus's true avgdl drifts from it by more than `DRIFT`, every
stored chunk's vector is recomputed from its stored text at the new value and
replaced in place. Nothing is re-embedded; the cost is one scroll and one
vector update per chunk, paid once per 10% of drift.
"""

from __future__ import annotations

from substrate.index.bm25 import SparseVector, chunk_keys, document_vector, tokenize
from substrate.index.store import VectorStore

DRIFT = 0.1
BATCH = 512


def avgdl_for(weighted: float | None, current: float) -> float:
    """The avgdl to write vectors at: the shared one while it is within `DRIFT`
    of the corpus's, else the corpus's (and the stored vectors follow)."""
    if weighted is None or weighted <= 0:
        return current
    if abs(current - weighted) / weighted > DRIFT:
        return current
    return float(weighted)


def reweight(store: VectorStore, slugs: list[str], avgdl: float, k1: float, b: float) -> int:
    """Recompute the BM25 vectors of these pages' stored chunks at `avgdl`;
    returns how many chunks were rewritten."""
    pending: list[tuple[str, int, SparseVector]] = []
    done = 0
    for payload in store.chunks_of(slugs):
        text = str(payload.get("text", ""))
        vector = document_vector(tokenize(text), avgdl, k1, b, chunk_keys(text))
        pending.append((str(payload["slug"]), int(payload["chunk"]), vector))
        if len(pending) >= BATCH:
            store.set_sparse(pending)
            done += len(pending)
            pending = []
    store.set_sparse(pending)
    return done + len(pending)
