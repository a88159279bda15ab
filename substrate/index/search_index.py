"""The hybrid index over concept pages: `SearchIndex` answers searches and hands
maintenance to `maintain.Maintenance`.

A search runs one store query per signal, fuses them (`fusion`) and trims
each hit's excerpt to the query (`excerpts`). Two things let an English
question find an Arabic page: a short page's chunks carry the whole page in
their `dense_ml` vectors (`maintain`), and BM25 matches the names in a query
to their Arabic spellings (`name_keys`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from substrate.config.settings import Settings
from substrate.config.tuning import SubstrateTuning
from substrate.config.workspace import CONCEPTS
from substrate.errors import InvalidInputError
from substrate.index.bm25 import TOKENIZER, Bm25Stats, query_terms, query_vector, question_keys
from substrate.index.embedding import Embedder, Vectors
from substrate.index.excerpts import EXCERPT_CHARS, SPAN_BREAK, chunk_excerpt, excerpt_for
from substrate.index.fusion import MAX_SPANS, SPAN_RATIO, WINDOW, Fusion, Hit, fuse, nearest_hits
from substrate.index.lexical_gate import GATE_BIAS, GATE_COVERAGE, GATE_MARGIN, LexicalGate
from substrate.index.live import LiveView
from substrate.index.maintain import Capability, MaintainReport, Maintenance, Progress
from substrate.index.query_batch import QueryBatcher
from substrate.index.store import DENSE, DENSE_ML, HISTORY, SPARSE, StoreHit, VectorStore
from substrate.pages.page_index import PageIndex
from substrate.safety.inputs import checked_text

QueryVectors = dict[str, Vectors]  # dense vector name -> the query's vector


EPISODE = "episode"
KINDS = ("page", "episode", "all")
WINDOW_CHUNKS = 8  # chunks fetched per episode reached by lineage (a window is a few)


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
        self._embedders = {DENSE: embedder} | ({DENSE_ML: multilingual} if multilingual else {})
        self._store = store
        self._maintenance = Maintenance(settings, self._embedders, store, lambda: self.identity)
        self._stats: Bm25Stats | None = None  # for searches; see `_search_stats`
        self.live: LiveView | None = None  # the read-time filter of a served workspace
        self._batcher: QueryBatcher[QueryVectors] | None = None
        self._ready: dict[str, QueryVectors] = {}  # `prefetch`ed query vectors

    def follow(
        self,
        pages: Callable[[], PageIndex],
        episode_now: Callable[[str, str, tuple[str, str]], str | None],
    ) -> LiveView:
        """Hits from now on follow the live page index `pages` and the log
        (`episode_now`) before the collection catches up (`live.LiveView`)."""
        m = self._maintenance
        self.live = LiveView(pages, m.indexed_hash, m.excerpt_now, episode_now)
        return self.live

    @property
    def store(self) -> VectorStore:
        return self._store

    @property
    def stats_path(self) -> Path:
        return self._maintenance.stats_path

    @property
    def identity(self) -> str:
        """What every stored vector depends on: a change means a full rebuild."""
        models = ";".join(f"{name}={e.identity}" for name, e in self._embedders.items())
        tuning = self._settings.tuning
        context = tuning.multilingual_page_context if DENSE_ML in self._embedders else 0
        facts = tuning.facts_per_chunk
        return f"{models};tokens={TOKENIZER};page_context={context};facts_per_chunk={facts}"

    def maintain(
        self,
        capabilities: Iterable[Capability] = (),
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        optimize: bool = True,
        only: Collection[str] | None = None,
    ) -> MaintainReport:
        """Bring the index up to the pages. `optimize=False` leaves compacting
        the store to a later `optimize()`: Qdrant Edge holds the GIL while it
        compacts, which would freeze a serving process's other threads. `only`:
        just these pages (what a change wrote; no walk of every page)."""
        report = self._maintenance.maintain(
            capabilities, rebuild=rebuild, progress=progress, optimize=optimize, only=only
        )
        if self._maintenance.saved is not None:
            self._stats = self._maintenance.saved
        return report

    def optimize(self) -> None:
        self._store.optimize()

    def compact(self) -> dict[str, Any]:
        """The derived index rewritten with its live content alone (`memory
        purge`): what it rewrote, with bytes before and after."""
        report = self._maintenance.compact()
        self._stats = self._maintenance.saved
        return report

    def holds_episodes(self) -> bool:
        """Whether the last maintain indexed any episode (a card searches them only
        then: a workspace without a conversation log pays nothing)."""
        return self._maintenance.holds(EPISODE)

    def state_matches(self, index: PageIndex) -> bool:
        """See `Maintenance.state_matches`."""
        return self._maintenance.state_matches(index)

    def is_current(self, index: PageIndex) -> bool | None:
        """Whether the collection holds exactly these pages, as this process last
        maintained it (None before its first maintain)."""
        return self._maintenance.is_current(index)

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        include_capabilities: bool = False,
        excerpt_chars: int | None = EXCERPT_CHARS,
        spans: tuple[int, float] = (MAX_SPANS, SPAN_RATIO),
        kind: str = "page",
    ) -> list[Hit]:
        """Hits for `query`: refused when blank (any page would "match") or over
        `memory.limits.query_bytes`. `excerpt_chars` bounds each hit's first span
        (None: the chunks whole, the card fits them itself); `spans`: how many of
        a page's chunks an excerpt may show (see `fuse`)."""
        if not query.strip():
            raise InvalidInputError("query is empty: give some text to search for")
        checked_text(query, "query", self._settings.limits.query_bytes, "query_bytes")
        return self.search_embedded(
            query,
            self.embed_query(query),
            k,
            include_capabilities=include_capabilities,
            excerpt_chars=excerpt_chars,
            spans=spans,
            kind=kind,
        )

    def warm(self) -> None:
        """Load what the first search would: every model and the corpus statistics
        (a query no page shares a term with would not touch the statistics)."""
        self._search_stats()
        self.search("warm up", 1)

    def embed_query(self, query: str) -> QueryVectors:
        """The query's vector for every dense signal (batched with the queries of
        concurrent requests once `batch_queries` was called)."""
        ready = self._ready.get(query)
        if ready is not None:
            return ready
        if self._batcher is not None:
            return self._batcher(query)
        return {name: e.embed_query(query) for name, e in self._embedders.items()}

    def prefetch(self, queries: list[str]) -> None:
        """Embed `queries` now, for the `embed_query` calls that follow (filing
        embeds its searches before it takes the consolidation lock, so no writer
        waits on a model behind it); an empty list lets the last ones go."""
        fresh = [q for q in dict.fromkeys(queries) if q.strip()]
        vectors = self.embed_queries(fresh) if fresh else []
        self._ready = dict(zip(fresh, vectors, strict=True))

    def batch_queries(self) -> QueryBatcher[QueryVectors]:
        """From now on, concurrent `embed_query` calls share model runs (a served
        workspace: `query_batch`)."""
        self._batcher = QueryBatcher(self.embed_queries)
        return self._batcher

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
        excerpt_chars: int | None = EXCERPT_CHARS,
        spans: tuple[int, float] = (MAX_SPANS, SPAN_RATIO),
        kind: str = "page",
        candidates: int | None = None,
    ) -> list[Hit]:
        """`search` with the query's dense vectors already computed (batches embed
        at once). `kind`: `page` (the pages, as the card reads them), `episode`
        (the conversation log's windows) or `all`. `candidates`: chunks fetched
        per signal, when not `candidate_chunks(k)` (the card's few episodes)."""
        if kind not in KINDS:
            raise InvalidInputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        pages = ["page", HISTORY] if kind in ("page", "all") else []
        kinds = [*pages, *([EPISODE] if kind in ("episode", "all") else [])]
        kinds += ["capability"] if include_capabilities else []
        tokens, keys = query_terms(query), question_keys(query)
        stats = self._search_stats() if self._store.idf_in_query else None
        sparse = query_vector(tokens, keys, stats)
        signals = self._store.search(vectors, sparse, candidates or candidate_chunks(k), kinds)
        coverage = self._coverage(tokens, signals.get(SPARSE, []))
        fusion = self.fusion_for(kind)
        hits = fuse(signals, fusion, coverage, k, self._store.full_payloads, spans=spans)
        hits = self._as_now(hits)
        # A page with nothing to show (its only facts forgotten, its title all it
        # has left) would top a search for its name with an empty excerpt.
        hits = [h for h in hits if h.excerpt.strip() or h.kind not in ("page", HISTORY)]
        if excerpt_chars is None:
            return hits
        terms = {*tokens, *keys}
        return [replace(h, excerpt=excerpt_for(h.excerpt, terms, excerpt_chars)) for h in hits]

    def unit_scores(
        self, vectors: QueryVectors, pages: Sequence[tuple[str, str | None]]
    ) -> dict[str, dict[int, float]]:
        """Each page's units (by `unit_key`) -> cosine with the query, for the
        (slug, content hash) pairs whose unit vectors are current (a hash of
        None: whatever version the file is of)."""
        query = vectors.get(DENSE_ML)
        if query is None:
            query = vectors[DENSE]
        return self._maintenance.units.scores(query, pages)

    def line_scores(self, vectors: QueryVectors, slugs: list[str]) -> dict[str, dict[int, float]]:
        """Each episode's lines (by `unit_key`) -> cosine with the query, as
        `unit_scores`, for episodes found by this search: a line's key is a hash
        of its text, so a file of another version of the window still scores
        the lines they share and none else."""
        return self.unit_scores(vectors, [(s, self._maintenance.indexed_hash(s)) for s in slugs])

    def whole_windows(self, hits: list[Hit]) -> list[Hit]:
        """Episode hits holding every chunk of their window: the spans search
        ranked first, as it ranked them, then the window's other chunks in
        order. The line that answers may lie in a chunk search did not return;
        the card ranks an episode's lines by meaning, so it reads them all."""
        slugs = [h.slug for h in hits if h.kind == EPISODE]
        chunks: dict[str, list[tuple[int, str]]] = {}
        for payload in self._store.chunks_of(slugs) if slugs else ():
            slug, text = str(payload.get("slug", "")), str(payload.get("text", ""))
            chunks.setdefault(slug, []).append((int(payload.get("chunk", 0)), text))
        out = []
        for hit in hits:
            spans = hit.excerpt.split(SPAN_BREAK)
            texts = (chunk_excerpt(text, hit.title) for _, text in sorted(chunks.get(hit.slug, [])))
            rest = [t for t in texts if t and t not in spans]
            out.append(replace(hit, excerpt=SPAN_BREAK.join([*spans, *rest])) if rest else hit)
        return self._as_now(out)

    def nearest_windows(self, vectors: QueryVectors, slugs: list[str]) -> list[Hit]:
        """These episodes as hits, reached by lineage rather than found by this
        search: each one's chunks nearest the query, best first (the
        multilingual signal's, else `dense`), its cosine that chunk's. An
        episode the index does not hold is absent."""
        if not slugs:
            return []
        name = DENSE_ML if DENSE_ML in vectors else DENSE
        chunks = self._store.nearest_in(name, vectors[name], slugs, WINDOW_CHUNKS * len(slugs))
        return self._as_now([h for h in nearest_hits(chunks, name) if h.kind == EPISODE])

    def _as_now(self, hits: list[Hit]) -> list[Hit]:
        """Hits read from stored chunks, as the files and the log hold them now
        (`live`): a forget shows on the next card, before any re-embedding."""
        return hits if self.live is None else self.live.current(hits)

    def best_chunks(self, vectors: QueryVectors, slugs: list[str]) -> dict[str, tuple[float, str]]:
        """Each page's chunk nearest the query by the `dense` vector: (cosine, its
        text). A page none of whose chunks came back within the fetched window
        (many long pages) is absent; a reranker treats it as unrelated."""
        if not slugs:
            return {}
        limit = max(candidate_chunks(len(slugs)), 8 * len(slugs))
        best: dict[str, tuple[float, str]] = {}
        for hit in self._store.nearest_in(DENSE, vectors[DENSE], slugs, limit):
            slug = str(hit.payload.get("slug", ""))
            if slug and slug not in best:
                best[slug] = (hit.score, str(hit.payload.get("text", "")))
        return best

    def fusion(self) -> Fusion:
        """The configured fusion over the signals this index has."""
        return configured_fusion(self._settings.tuning, DENSE_ML in self._embedders)

    def fusion_for(self, kind: str) -> Fusion:
        """The fusion a search of `kind` uses: an episode search keeps BM25's full
        weight whatever its evidence, since a conversation's windows all share its
        names and topics (`LexicalGate`)."""
        fusion = self.fusion()
        return replace(fusion, gate=LexicalGate()) if kind == EPISODE else fusion

    def coverage(self, query: str, sparse_hits: list[StoreHit]) -> float:
        """`_coverage` for a query text (benchmarks fuse store results themselves)."""
        return self._coverage(query_terms(query), sparse_hits)

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
            self._stats = Bm25Stats.load(self._maintenance.stats_path)
        return self._stats


def configured_fusion(tuning: SubstrateTuning, multilingual: bool) -> Fusion:
    """The fusion `tuning` sets, over the multilingual signal when there is one."""
    weights = {DENSE: tuning.dense_weight, SPARSE: tuning.sparse_weight}
    if multilingual:
        weights[DENSE_ML] = tuning.multilingual_weight
    return Fusion(
        weights,
        tuning.fusion,
        {DENSE: tuning.dense_min_span, DENSE_ML: tuning.multilingual_min_span},
        tuning.sparse_min_coverage,
        tuning.dense_anchor_floor,
        LexicalGate(tuning.sparse_gate_depth, GATE_BIAS, GATE_COVERAGE, GATE_MARGIN),
    )


def candidate_chunks(k: int) -> int:
    """Chunks fetched per signal for k pages: pages repeat across chunks, and
    min-max fusion scales each signal over this list."""
    return max(WINDOW + 1, 5 * k)


def open_store(settings: Settings) -> VectorStore:
    """The configured Qdrant server, else the embedded shard under `.substrate/qdrant`."""
    from substrate.config.tuning import resolve_qdrant_server
    from substrate.index.qdrant_edge import EdgeStore
    from substrate.index.server_store import ServerStore

    server = resolve_qdrant_server(settings.config)
    ws = settings.workspace
    if server is not None:
        collection = (
            server.collection if ws.corpus == CONCEPTS else f"{server.collection}_{ws.corpus}"
        )
        tenant = settings.tenant or server.tenant
        return ServerStore(
            server.url, collection, server.api_key, tenant, replication=server.replication
        )
    return EdgeStore(ws.index_dir / "qdrant", settings.tuning.dense_quantization)


def open_search_index(
    settings: Settings,
    embedder: Embedder | None = None,
    multilingual: Embedder | None = None,
) -> SearchIndex:
    """The configured models over the configured store; given models replace them
    (a service passes the ones it keeps loaded)."""
    from substrate.index.embedding import FastembedEmbedder

    tuning = settings.tuning
    state_dir = settings.workspace.state_dir
    providers = settings.compute.providers
    model = embedder or FastembedEmbedder(tuning.embedding_model, state_dir, providers=providers)
    second = multilingual or open_multilingual(tuning.multilingual_model, state_dir)
    return SearchIndex(settings, model, open_store(settings), second)


def open_multilingual(name: str, state_dir: Path) -> Embedder | None:
    """The multilingual embedder `multilingual_model` names: the bundled USE, none
    for "off", else a fastembed model or `path:` folder like `embedding_model`."""
    from substrate.config.schema import MULTILINGUAL_OFF
    from substrate.index.embedding import FastembedEmbedder
    from substrate.index.use_embedder import USE_MODEL, shared_use

    if name == MULTILINGUAL_OFF:
        return None
    if name == USE_MODEL:
        return shared_use(state_dir)
    return FastembedEmbedder(name, state_dir)
