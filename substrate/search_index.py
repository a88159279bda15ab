"""The hybrid index over concept pages: maintenance (what to embed) and search.

Maintenance diffs the PageIndex against `.substrate/index-state.json` (the
content hash and chunk count of every indexed page). The PageIndex already
re-reads only files whose (mtime, size) moved, so the candidates come from
modification times and the content hash confirms them: unchanged pages and
pages merely touched cost nothing,
changed pages are re-chunked, re-embedded and upserted, deleted pages leave
the collection. A changed embedder identity, or a store that lost its
points, means a full rebuild rather than vectors from two models side by side;
so does a change of what a BM25 token is (`bm25.TOKENIZER`).

Search runs one query per signal over chunks — the English dense vector, the
multilingual one (`dense_ml`, when configured) and BM25 — keeps each page's
best chunk per signal, ranks pages per signal and fuses the rankings with the
configured weights (`rrf`: weighted reciprocal rank, k=60; `minmax`: weighted
min-max-normalised scores, the default). Min-max alone lets a signal with
nothing to say speak at full weight: a flat list of cosines from a model that
cannot read the query's language is stretched to [0, 1], and one number shared
by an English question and an Arabic page makes BM25's only hit its top. So
each dense signal is scaled by at least a minimum span, and BM25's weight
shrinks with its coverage of the query (`Fusion`; values measured on XQuAD and
LoCoMo, see the README).

Two things let an English question find an Arabic page: a short page's chunks
carry the whole page in their `dense_ml` vectors (`_page_context`), and BM25
matches the names in a query to their Arabic spellings (`substrate.name_keys`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from substrate.bm25 import (
    TOKENIZER,
    Bm25Stats,
    chunk_keys,
    document_vector,
    query_vector,
    question_keys,
    tokenize,
)
from substrate.chunks import Chunk, chunk_page, page_text
from substrate.embedding import Embedder, Vectors
from substrate.errors import PageParseError
from substrate.page_index import PageEntry, load_page_index
from substrate.pages import decode_page, split_frontmatter
from substrate.safe_files import write_atomic
from substrate.settings import Settings
from substrate.vector_store import DENSE, DENSE_ML, SPARSE, IndexPoint, StoreHit, VectorStore

STATE_VERSION = 2
RRF_K = 60
EMBED_BATCH = 64
Progress = Callable[[int, int], None]
QueryVectors = dict[str, Vectors]  # dense vector name -> the query's vector


@dataclass(frozen=True)
class Capability:
    """A synthetic entry (a CLI command, a skill): searchable, never fresh."""

    slug: str
    title: str
    text: str


@dataclass(frozen=True)
class MaintainReport:
    embedded: int
    chunks: int
    deleted: int
    unchanged: int
    seconds: float
    rebuilt: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "embedded": self.embedded,
            "chunks": self.chunks,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "seconds": round(self.seconds, 3),
            "rebuilt": self.rebuilt,
        }


@dataclass(frozen=True)
class Hit:
    slug: str
    title: str
    kind: str
    score: float
    dense_rank: int | None
    sparse_rank: int | None
    dense_score: float | None  # cosine of the page's best chunk: absolute, unlike `score`
    sparse_score: float | None  # BM25 of the page's best chunk
    excerpt: str
    fresh_at: str | None
    source: str | None
    origin_date: str | None
    dense_ml_rank: int | None = None
    dense_ml_score: float | None = None  # multilingual cosine of the page's best chunk

    def as_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "score": round(self.score, 6),
            "dense_rank": self.dense_rank,
            "sparse_rank": self.sparse_rank,
            "dense_score": None if self.dense_score is None else round(self.dense_score, 6),
            "sparse_score": None if self.sparse_score is None else round(self.sparse_score, 6),
            "dense_ml_rank": self.dense_ml_rank,
            "dense_ml_score": None
            if self.dense_ml_score is None
            else round(self.dense_ml_score, 6),
            "excerpt": self.excerpt,
            "kind": self.kind,
            "fresh_at": self.fresh_at,
            "source": self.source,
            "origin_date": self.origin_date,
        }


@dataclass(frozen=True)
class _Doc:
    """One page or capability as it should be in the index."""

    slug: str
    title: str
    kind: str
    content_hash: str
    fresh_at: float | None
    source: str | None
    origin_date: str | None
    path: Path | None
    text: str | None


class SearchIndex:
    """`embedder` makes the `dense` vector (and its token counts set the chunk
    size); `multilingual`, when given, makes `dense_ml` for the same chunks."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        store: VectorStore,
        multilingual: Embedder | None = None,
    ) -> None:
        self._settings = settings
        self._embedder = embedder
        self._embedders = {DENSE: embedder} | ({DENSE_ML: multilingual} if multilingual else {})
        self._store = store
        state_dir = settings.workspace.state_dir
        self._state_path = state_dir / "index-state.json"
        self._stats_path = state_dir / "bm25-stats.json"
        self._stats: Bm25Stats | None = None  # for searches; see `_search_stats`

    @property
    def store(self) -> VectorStore:
        return self._store

    @property
    def identity(self) -> str:
        """What every stored vector depends on: a change means a full rebuild."""
        models = ";".join(f"{name}={e.identity}" for name, e in self._embedders.items())
        context = (
            self._settings.tuning.multilingual_page_context if DENSE_ML in self._embedders else 0
        )
        return f"{models};tokens={TOKENIZER};page_context={context}"

    def _dims(self) -> dict[str, int]:
        return {name: e.dim for name, e in self._embedders.items()}

    # -- maintenance -----------------------------------------------------

    def maintain(
        self,
        capabilities: Iterable[Capability] = (),
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        optimize: bool = True,
    ) -> MaintainReport:
        """Bring the index up to the pages. `optimize=False` leaves compacting
        the store to a later `optimize()`: Qdrant Edge holds the GIL while it
        compacts, which would freeze a serving process's other threads."""
        started = time.perf_counter()
        state = self._read_state()
        identity = self.identity
        indexed: dict[str, list[Any]] = state.get("pages", {})
        lost = bool(indexed) and self._store.count() == 0
        rebuilt = rebuild or lost or state.get("identity") != identity
        if rebuilt:
            self._store.reset(self._dims())
            indexed, stats = {}, Bm25Stats()
        else:
            self._store.ensure(self._dims())
            stats = self._load_stats(list(indexed))
        wanted, changed = self._changed_docs(capabilities, indexed)
        deleted = [slug for slug in indexed if slug not in wanted]
        self._forget([*deleted, *(d.slug for d in changed if d.slug in indexed)], stats)
        chunks = self._index(changed, stats, progress)
        for slug in deleted:
            indexed.pop(slug, None)
        for doc, n in zip(changed, chunks, strict=True):
            indexed[doc.slug] = [doc.content_hash, n]
        if changed or deleted or rebuilt or stats.dirty:
            # A no-op maintain writes nothing: flush and rewrites cost more than the diff.
            self._store.flush()
            if (changed or deleted) and optimize:
                self._store.optimize()
            stats.save(self._stats_path)
            self._stats = stats
            self._write_state({"version": STATE_VERSION, "identity": identity, "pages": indexed})
        return MaintainReport(
            embedded=len(changed),
            chunks=sum(chunks),
            deleted=len(deleted),
            unchanged=len(wanted) - len(changed),
            seconds=time.perf_counter() - started,
            rebuilt=rebuilt,
        )

    def optimize(self) -> None:
        self._store.optimize()

    def _load_stats(self, indexed: list[str]) -> Bm25Stats:
        """The saved BM25 statistics, rebuilt from the stored chunk texts when they
        do not describe the store (deleted, corrupt, or from an interrupted run)."""
        stats = Bm25Stats.load(self._stats_path)
        if stats.documents == self._store.count():
            return stats
        stats = Bm25Stats()
        for payload in self._store.chunks_of(indexed):
            text = str(payload.get("text", ""))
            stats.add(tokenize(text), chunk_keys(text))
        return stats

    def _changed_docs(
        self, capabilities: Iterable[Capability], indexed: dict[str, list[Any]]
    ) -> tuple[set[str], list[_Doc]]:
        """(every slug that should be indexed, docs for those whose content changed).

        Only changed pages become `_Doc`s: at 10,000 unchanged pages, building
        one object per page was most of a no-op maintain."""
        index = load_page_index(self._settings.workspace)
        concepts = self._settings.workspace.concepts_dir
        wanted = set(index.entries)
        changed = [
            _page_doc(e, concepts)
            for e in index.entries.values()
            if not _same(indexed.get(e.slug), e.content_hash)
        ]
        for cap in capabilities:
            digest = hashlib.sha256(f"{cap.title}\n{cap.text}".encode()).hexdigest()
            wanted.add(cap.slug)
            if not _same(indexed.get(cap.slug), digest):
                changed.append(
                    _Doc(
                        cap.slug, cap.title, "capability", digest, None, None, None, None, cap.text
                    )
                )
        return wanted, changed

    def _forget(self, slugs: list[str], stats: Bm25Stats) -> None:
        """Remove these pages' chunks from the store and their terms from the BM25 stats."""
        if not slugs:
            return
        for payload in self._store.chunks_of(slugs):
            text = str(payload.get("text", ""))
            stats.remove(tokenize(text), chunk_keys(text))
        self._store.delete_slugs(slugs)

    def _index(self, docs: list[_Doc], stats: Bm25Stats, progress: Progress | None) -> list[int]:
        """Chunk every doc, update BM25 stats, then embed and upsert in batches."""
        tuning = self._settings.tuning
        planned: list[tuple[_Doc, Chunk, list[str], list[str]]] = []
        counts: list[int] = []
        pages: dict[str, tuple[str, list[Chunk]]] = {}
        for doc in docs:
            chunks = self._chunks(doc)
            counts.append(len(chunks))
            pages[doc.slug] = (doc.title, chunks)
            for chunk in chunks:
                tokens, keys = tokenize(chunk.text), chunk_keys(chunk.text)
                stats.add(tokens, keys)
                planned.append((doc, chunk, tokens, keys))
        context = self._page_context(pages)
        avgdl = stats.avgdl
        total = len(planned)
        for start in range(0, total, EMBED_BATCH):
            batch = planned[start : start + EMBED_BATCH]
            texts = [chunk.text for _, chunk, _, _ in batch]
            vectors = {name: e.embed_documents(texts) for name, e in self._embedders.items()}
            if DENSE_ML in vectors and context:
                vectors[DENSE_ML] = _with_context(
                    vectors[DENSE_ML], [context.get(doc.slug) for doc, _, _, _ in batch]
                )
            points = [
                IndexPoint(
                    slug=doc.slug,
                    chunk=chunk.index,
                    dense={name: v[i] for name, v in vectors.items()},
                    sparse=document_vector(tokens, avgdl, tuning.bm25_k1, tuning.bm25_b, keys),
                    payload=_payload(doc, chunk),
                )
                for i, (doc, chunk, tokens, keys) in enumerate(batch)
            ]
            self._store.upsert(points)
            if progress is not None:
                progress(min(start + EMBED_BATCH, total), total)
        return counts

    def _page_context(self, pages: dict[str, tuple[str, list[Chunk]]]) -> dict[str, Vectors]:
        """The multilingual vector of each whole page that is cut into several chunks
        yet fits `multilingual_page_context` of the model's tokens.

        A chunk of a short page loses the rest of its paragraph: MiniLM's tokenizer
        cuts a 600-character Arabic paragraph in three, and each third alone is a
        weaker match for a question about the paragraph. Each such chunk's `dense_ml`
        vector is its own plus the page's (`_with_context`). A long page is left
        alone: its vector averages many topics (a conversation session) and blurs
        every chunk. Measured (README, Search index): XQuAD en→ar hit@5 .900 → .918,
        LoCoMo unchanged at session granularity and R@1 +.002 at window."""
        limit = self._settings.tuning.multilingual_page_context
        model = self._embedders.get(DENSE_ML)
        if model is None or limit <= 0:
            return {}
        whole = {
            slug: page_text(title, chunks)
            for slug, (title, chunks) in pages.items()
            if len(chunks) > 1
        }
        slugs = list(whole)
        sizes = model.count_tokens([whole[slug] for slug in slugs])
        fitting = [slug for slug, n in zip(slugs, sizes, strict=True) if n <= limit]
        vectors: dict[str, Vectors] = {}
        for start in range(0, len(fitting), EMBED_BATCH):
            batch = fitting[start : start + EMBED_BATCH]
            embedded = model.embed_documents([whole[slug] for slug in batch])
            vectors.update(zip(batch, embedded, strict=True))
        return vectors

    def _chunks(self, doc: _Doc) -> list[Chunk]:
        body = doc.text
        if body is None and doc.path is not None:
            try:
                _, body = split_frontmatter(decode_page(doc.path.read_bytes()))
            except (OSError, PageParseError):
                body = ""  # changed or vanished since the scan; the next maintain catches up
        return chunk_page(
            doc.title, body or "", self._embedder.count_tokens, self._embedder.max_tokens
        )

    def _read_state(self) -> dict[str, Any]:
        try:
            state = json.loads(self._state_path.read_bytes())
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else {}

    def _write_state(self, state: dict[str, Any]) -> None:
        write_atomic(self._state_path, json.dumps(state, ensure_ascii=False, separators=(",", ":")))

    # -- search ----------------------------------------------------------

    def search(self, query: str, k: int = 10, *, include_capabilities: bool = False) -> list[Hit]:
        return self.search_embedded(
            query, self.embed_query(query), k, include_capabilities=include_capabilities
        )

    def warm(self) -> None:
        """Load what the first search would: every model and the corpus statistics
        (a query no page shares a term with would not touch the statistics)."""
        self._search_stats()
        self.search("warm up", 1)

    def embed_query(self, query: str) -> QueryVectors:
        """The query's vector for every dense signal."""
        return {name: e.embed_query(query) for name, e in self._embedders.items()}

    def embed_queries(self, queries: list[str]) -> list[QueryVectors]:
        """`embed_query` for many queries, each model run once over all of them."""
        per_model = {name: e.embed_queries(queries) for name, e in self._embedders.items()}
        return [{name: v[i] for name, v in per_model.items()} for i in range(len(queries))]

    def search_embedded(
        self,
        query: str,
        vectors: QueryVectors,
        k: int = 10,
        *,
        include_capabilities: bool = False,
    ) -> list[Hit]:
        """`search` with the query's dense vectors already computed (batches embed at once)."""
        kinds = ["page", "capability"] if include_capabilities else ["page"]
        tokens, keys = tokenize(query), question_keys(query)
        sparse = query_vector(tokens, keys)
        signals = self._store.search(vectors, sparse, candidate_chunks(k), kinds)
        coverage = self._coverage(tokens, signals.get(SPARSE, []))
        hits = fuse(signals, self.fusion(), coverage, limit=k, payloads=self._store.full_payloads)
        terms = {*tokens, *keys}
        return [replace(h, excerpt=excerpt_for(h.excerpt, terms)) for h in hits]

    def fusion(self) -> Fusion:
        """The configured fusion over the signals this index has."""
        tuning = self._settings.tuning
        weights = {DENSE: tuning.dense_weight, SPARSE: tuning.sparse_weight}
        if DENSE_ML in self._embedders:
            weights[DENSE_ML] = tuning.multilingual_weight
        return Fusion(
            weights,
            tuning.fusion,
            {DENSE: tuning.dense_min_span, DENSE_ML: tuning.multilingual_min_span},
            tuning.sparse_min_coverage,
        )

    def coverage(self, query: str, sparse_hits: list[StoreHit]) -> float:
        """`_coverage` for a query text (benchmarks fuse store results themselves)."""
        return self._coverage(tokenize(query), sparse_hits)

    def _coverage(self, tokens: list[str], sparse_hits: list[StoreHit]) -> float:
        """The best chunk's BM25 over the query's ideal: every term at its saturation
        limit (k1 + 1) in one chunk, terms the corpus lacks at their (top) IDF."""
        if not sparse_hits:
            return 0.0
        stats = self._search_stats()
        k1 = self._settings.tuning.bm25_k1
        ideal = sum(stats.idf(term) * (k1 + 1) for term in tokens)
        return min(1.0, sparse_hits[0].score / ideal) if ideal > 0 else 0.0

    def _search_stats(self) -> Bm25Stats:
        """The corpus statistics, read once per process and replaced by each maintain."""
        if self._stats is None:
            self._stats = Bm25Stats.load(self._stats_path)
        return self._stats


def candidate_chunks(k: int) -> int:
    """Chunks fetched per signal for k pages: pages repeat across chunks, and
    min-max fusion scales each signal over this list."""
    return max(50, 5 * k)


def _with_context(chunks: Vectors, pages: list[Vectors | None]) -> Vectors:
    """Each chunk's vector plus its page's where it has one, back to unit length."""
    out = np.array(chunks, dtype=np.float32)
    for i, page in enumerate(pages):
        if page is not None:
            blended = out[i] + page
            out[i] = blended / max(float(np.linalg.norm(blended)), 1e-12)
    return out


def _same(indexed: list[Any] | None, content_hash: str) -> bool:
    """Unchanged when the stored content hash matches."""
    return indexed is not None and indexed[0] == content_hash


def _page_doc(entry: PageEntry, concepts: Path) -> _Doc:
    return _Doc(
        slug=entry.slug,
        title=entry.title,
        kind="page",
        content_hash=entry.content_hash,
        fresh_at=entry.fresh_at.timestamp() if entry.fresh_at else None,
        source=entry.source,
        origin_date=entry.origin_date,
        path=concepts / entry.path,
        text=None,
    )


def _payload(doc: _Doc, chunk: Chunk) -> dict[str, Any]:
    return {
        "slug": doc.slug,
        "title": doc.title,
        "kind": doc.kind,
        "fresh_at": doc.fresh_at,
        "chunk": chunk.index,
        "text": chunk.text,
        "source": doc.source,
        "origin_date": doc.origin_date,
    }


def _best_per_page(hits: list[StoreHit]) -> list[StoreHit]:
    """Each page's best chunk, in rank order (hits arrive best first)."""
    seen: dict[str, StoreHit] = {}
    for hit in hits:
        seen.setdefault(str(hit.payload["slug"]), hit)
    return list(seen.values())


SIGNALS = (DENSE, DENSE_ML, SPARSE)  # also the tie order for which chunk is the excerpt


@dataclass(frozen=True)
class Fusion:
    """How per-signal page rankings combine (see the module doc).

    `min_span` (min-max only): a signal's scores are divided by their span over
    the candidates, but never by less than this; a model that cannot read the
    query (MiniLM on Arabic) returns a flat list that plain min-max would
    stretch to full weight. `sparse_coverage` in [0, 1] scales BM25's weight:
    its best chunk's share of the query's ideal score over `min_coverage`,
    capped at 1, so a query sharing one number with a page in another language
    is not decided by that number."""

    weights: dict[str, float]
    method: str = "minmax"
    min_span: dict[str, float] = field(default_factory=dict)
    min_coverage: float = 0.0


def fuse(
    signals: dict[str, list[StoreHit]],
    fusion: Fusion,
    sparse_coverage: float = 1.0,
    limit: int | None = None,
    payloads: Callable[[list[StoreHit]], list[dict[str, Any]]] | None = None,
) -> list[Hit]:
    """Pages ranked by the weighted sum of their per-signal scores; the first
    `limit` of them when given (a search scores ~250 candidate pages for 20 hits,
    and building a hit costs more than scoring it). `payloads` completes the
    shown chunks' payloads when the store searched without them."""
    best = {
        name: {str(h.payload["slug"]): h for h in _best_per_page(signals.get(name, []))}
        for name in SIGNALS
    }
    ranks = {name: {slug: i + 1 for i, slug in enumerate(pages)} for name, pages in best.items()}
    scores: dict[str, float] = {}
    for name, weight in fusion.weights.items():
        if name == SPARSE and fusion.min_coverage > 0:
            weight *= min(1.0, sparse_coverage / fusion.min_coverage)
        if fusion.method == "minmax":
            part = _minmax(list(best[name].values()), weight, fusion.min_span.get(name, 0.0))
        else:
            part = {slug: weight / (RRF_K + r) for slug, r in ranks[name].items()}
        for slug, value in part.items():
            scores[slug] = scores.get(slug, 0.0) + value
    shown = []
    for slug in sorted(scores, key=lambda slug: (-scores[slug], slug))[:limit]:
        page_ranks = {name: ranks[name].get(slug) for name in SIGNALS}
        # The excerpt is the chunk from whichever signal ranked the page highest.
        top = min(
            (name for name in SIGNALS if page_ranks[name] is not None),
            key=lambda name: (page_ranks[name], SIGNALS.index(name)),
        )
        raw = {name: best[name][slug].score if page_ranks[name] else None for name in SIGNALS}
        shown.append((slug, best[top][slug], page_ranks, raw))
    chunks = [chunk for _, chunk, _, _ in shown]
    full = payloads(chunks) if payloads else [c.payload for c in chunks]
    return [
        _hit(slug, payload, scores[slug], page_ranks, raw)
        for (slug, _, page_ranks, raw), payload in zip(shown, full, strict=True)
    ]


def _minmax(hits: list[StoreHit], weight: float, min_span: float = 0.0) -> dict[str, float]:
    """Scores scaled to [0, 1] within this result list (by at least `min_span`),
    times the signal's weight."""
    if not hits:
        return {}
    top = max(h.score for h in hits)
    bottom = min(h.score for h in hits)
    span = max(top - bottom, min_span)
    return {
        str(h.payload["slug"]): weight * ((h.score - bottom) / span if span > 0 else 1.0)
        for h in hits
    }


def _hit(
    slug: str,
    payload: dict[str, Any],
    score: float,
    ranks: dict[str, int | None],
    raw: dict[str, float | None],
) -> Hit:
    title = str(payload.get("title", slug))
    return Hit(
        slug=slug,
        title=title,
        kind=str(payload.get("kind", "page")),
        score=score,
        dense_rank=ranks[DENSE],
        sparse_rank=ranks[SPARSE],
        dense_score=raw[DENSE],
        sparse_score=raw[SPARSE],
        excerpt=_excerpt(str(payload.get("text", "")), title),
        fresh_at=_iso(payload.get("fresh_at")),
        source=payload.get("source"),
        origin_date=payload.get("origin_date"),
        dense_ml_rank=ranks[DENSE_ML],
        dense_ml_score=raw[DENSE_ML],
    )


EXCERPT_CHARS = 400


def _excerpt(text: str, title: str) -> str:
    """The chunk without its title prefix (trimmed to the query by `excerpt_for`)."""
    return text.removeprefix(f"{title}\n\n").strip()


def excerpt_for(body: str, query_terms: set[str], limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of the chunk, around the lines sharing most query
    terms (words or name keys)."""
    if len(body) <= limit:
        return body
    lines = body.split("\n")
    overlap = [len(query_terms & {*tokenize(line), *chunk_keys(line)}) for line in lines]
    best = max(range(len(lines)), key=lambda i: (overlap[i], -i))
    start = end = best
    size = len(lines[best])
    while True:
        grow_up = start > 0 and size + len(lines[start - 1]) + 1 <= limit
        grow_down = end + 1 < len(lines) and size + len(lines[end + 1]) + 1 <= limit
        if not (grow_up or grow_down):
            break
        if grow_down and (not grow_up or overlap[end + 1] >= overlap[start - 1]):
            end += 1
            size += len(lines[end]) + 1
        else:
            start -= 1
            size += len(lines[start]) + 1
    window = "\n".join(lines[start : end + 1])
    if len(window) > limit:
        window = window[: limit - 1].rstrip() + "…"
    return ("…" if start > 0 else "") + window + ("…" if end + 1 < len(lines) else "")


def _iso(epoch: Any) -> str | None:
    if not isinstance(epoch, int | float):
        return None
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat().replace("+00:00", "Z")


def open_store(settings: Settings) -> VectorStore:
    """The configured Qdrant server, else the embedded shard under `.substrate/qdrant`."""
    from substrate.tuning import resolve_qdrant_server
    from substrate.vector_store import EdgeStore, ServerStore

    server = resolve_qdrant_server(settings.config)
    if server is not None:
        return ServerStore(server.url, server.collection, server.api_key)
    return EdgeStore(settings.workspace.state_dir / "qdrant")


def open_search_index(
    settings: Settings,
    embedder: Embedder | None = None,
    multilingual: Embedder | None = None,
) -> SearchIndex:
    """The configured models over the configured store; given models replace them
    (a service passes the ones it keeps loaded)."""
    from substrate.embedding import FastembedEmbedder

    tuning = settings.tuning
    state_dir = settings.workspace.state_dir
    model = embedder or FastembedEmbedder(tuning.embedding_model, state_dir)
    second = multilingual or open_multilingual(tuning.multilingual_model, state_dir)
    return SearchIndex(settings, model, open_store(settings), second)


def open_multilingual(name: str, state_dir: Path) -> Embedder | None:
    """The multilingual embedder `multilingual_model` names: the bundled USE, none
    for "off", else a fastembed model or `path:` folder like `embedding_model`."""
    from substrate.config import MULTILINGUAL_OFF
    from substrate.embedding import FastembedEmbedder
    from substrate.use_embedder import USE_MODEL, UseEmbedder

    if name == MULTILINGUAL_OFF:
        return None
    if name == USE_MODEL:
        return UseEmbedder(state_dir)
    return FastembedEmbedder(name, state_dir)
