"""Index: the derived hybrid index over concept pages.

Owns the embedders (MiniLM, multilingual USE), chunking, BM25 (its tokenizer,
Arabic folding and name keys, corpus statistics and sparse vectors), the two
Qdrant store adapters, maintenance (what to embed), search, fusion and
excerpts, and the corpus figures `stats` reports. Everything it holds can be
deleted and rebuilt from `memory/`. It imports `config`, `safety`, `pages` and
`intake`; it must not import any room built on it (consolidation and the
learning side) or anything outside `substrate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from substrate.lazy import exports

if TYPE_CHECKING:  # the room's names (`X as X`: re-exported); loaded on first use
    from substrate.index.arabic import (
        arabic_term as arabic_term,
        fold_arabic as fold_arabic,
        has_arabic as has_arabic,
        strip_marks as strip_marks,
    )
    from substrate.index.bm25 import (
        STOPWORDS as STOPWORDS,
        tokenize as tokenize,
    )
    from substrate.index.embedding import (
        BUNDLED_MODEL as BUNDLED_MODEL,
        Embedder as Embedder,
        FastembedEmbedder as FastembedEmbedder,
        Vectors as Vectors,
    )
    from substrate.index.excerpts import (
        EXCERPT_CHARS as EXCERPT_CHARS,
        excerpt_for as excerpt_for,
    )
    from substrate.index.fusion import (
        Fusion as Fusion,
        Hit as Hit,
        fuse as fuse,
    )
    from substrate.index.lexical_gate import (
        LexicalGate as LexicalGate,
    )
    from substrate.index.maintain import (
        Capability as Capability,
        MaintainReport as MaintainReport,
    )
    from substrate.index.names import (
        EntityMatcher as EntityMatcher,
        NameMatch as NameMatch,
        matcher_for as matcher_for,
        name_words as name_words,
    )
    from substrate.index.qdrant_edge import (
        EdgeStore as EdgeStore,
    )
    from substrate.index.search_index import (
        SearchIndex as SearchIndex,
        candidate_chunks as candidate_chunks,
        configured_fusion as configured_fusion,
        open_multilingual as open_multilingual,
        open_search_index as open_search_index,
        open_store as open_store,
    )
    from substrate.index.server_store import (
        ServerStore as ServerStore,
    )
    from substrate.index.stats import (
        Stats as Stats,
        collect_stats as collect_stats,
    )
    from substrate.index.store import (
        DENSE as DENSE,
        DENSE_ML as DENSE_ML,
        SPARSE as SPARSE,
        IndexPoint as IndexPoint,
        StoreHit as StoreHit,
        VectorStore as VectorStore,
    )
    from substrate.index.use_embedder import (
        USE_DIM as USE_DIM,
        UseEmbedder as UseEmbedder,
    )

__getattr__ = exports(__name__, __file__)
