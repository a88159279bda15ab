"""Index: the derived hybrid index over concept pages.

Owns the embedders (MiniLM, multilingual USE), chunking, BM25 (its tokenizer,
Arabic folding and name keys, corpus statistics and sparse vectors), the two
Qdrant store adapters, maintenance (what to embed), search, fusion and
excerpts, and the corpus figures `stats` reports. Everything it holds can be
deleted and rebuilt from `memory/`. It imports `config`, `safety`, `pages` and
`intake`; it must not import any room built on it (consolidation and the
learning side) or anything outside `substrate`.
"""

from substrate.index.arabic import arabic_term, fold_arabic, has_arabic, strip_marks
from substrate.index.bm25 import STOPWORDS, tokenize
from substrate.index.edge_store import EdgeStore
from substrate.index.embedding import BUNDLED_MODEL, Embedder, FastembedEmbedder, Vectors
from substrate.index.excerpts import EXCERPT_CHARS, excerpt_for
from substrate.index.fusion import Fusion, Hit, fuse
from substrate.index.maintain import Capability, MaintainReport
from substrate.index.names import EntityMatcher, NameMatch, matcher_for, name_words
from substrate.index.search_index import (
    SearchIndex,
    candidate_chunks,
    open_multilingual,
    open_search_index,
    open_store,
)
from substrate.index.server_store import ServerStore
from substrate.index.stats import Stats, collect_stats
from substrate.index.store import DENSE, DENSE_ML, SPARSE, IndexPoint, StoreHit, VectorStore
from substrate.index.use_embedder import USE_DIM, UseEmbedder

__all__ = [
    "BUNDLED_MODEL",
    "DENSE",
    "DENSE_ML",
    "EXCERPT_CHARS",
    "SPARSE",
    "STOPWORDS",
    "USE_DIM",
    "Capability",
    "EdgeStore",
    "Embedder",
    "EntityMatcher",
    "FastembedEmbedder",
    "Fusion",
    "Hit",
    "IndexPoint",
    "MaintainReport",
    "NameMatch",
    "SearchIndex",
    "ServerStore",
    "Stats",
    "StoreHit",
    "UseEmbedder",
    "VectorStore",
    "Vectors",
    "arabic_term",
    "candidate_chunks",
    "collect_stats",
    "excerpt_for",
    "fold_arabic",
    "fuse",
    "has_arabic",
    "matcher_for",
    "name_words",
    "open_multilingual",
    "open_search_index",
    "open_store",
    "strip_marks",
    "tokenize",
]
