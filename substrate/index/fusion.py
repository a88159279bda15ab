"""Fusing per-signal rankings into one list of page hits.

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
LoCoMo, see docs/benchmarks.md). A question worded its own way shares no word
with its page, yet BM25 still ranks whatever shares its other words, at full
weight: so BM25's weight also reads the query's lexical evidence, its best
page's coverage and how far that page stands out from the next (`LexicalGate`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from substrate.index.excerpts import SPAN_BREAK, chunk_excerpt
from substrate.index.lexical_gate import LexicalGate, page_margin
from substrate.index.store import DENSE, DENSE_ML, HISTORY, SPARSE, StoreHit

RRF_K = 60
HISTORY_WEIGHT = 0.8
WINDOW = 50  # chunks per signal that set its scale: what a search of any k fetches


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
    quarantine: str | None = None  # why the scanner quarantined this imported page
    meta: dict[str, Any] | None = None  # an episode's session and time span

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
            "quarantine": self.quarantine,
            **_episode_fields(self.meta if self.kind == "episode" else None),
        }


def _best_per_page(hits: list[StoreHit]) -> list[StoreHit]:
    """Each page's best chunk, in rank order (hits arrive best first)."""
    seen: dict[str, StoreHit] = {}
    for hit in hits:
        seen.setdefault(str(hit.payload["slug"]), hit)
    return list(seen.values())


SIGNALS = (DENSE, DENSE_ML, SPARSE)
ANCHOR_RANK = 5
MAX_SPANS = 2
SPAN_RATIO = 0.8


@dataclass(frozen=True)
class Fusion:
    """How per-signal page rankings combine (see the module doc).

    `min_span` (min-max only): a signal's scores are divided by their span over
    the candidates, but never by less than this; a model that cannot read the
    query (MiniLM on Arabic) returns a flat list that plain min-max would
    stretch to full weight. `sparse_coverage` in [0, 1] scales BM25's weight:
    its best chunk's share of the query's ideal score over `min_coverage`,
    capped at 1, so a query sharing one number with a page in another language
    is not decided by that number. `anchor_floor` > 0: the dense signal's best
    page, when its cosine reaches the floor, is kept within the first
    `ANCHOR_RANK` (a question worded its own way shares no word with its page,
    and BM25's matches on the question's other words push that page out).
    `gate`: BM25's weight also keeps only the share its lexical evidence earns
    (`LexicalGate`; off by default here, on in `configured_fusion`)."""

    weights: dict[str, float]
    method: str = "minmax"
    min_span: dict[str, float] = field(default_factory=dict)
    min_coverage: float = 0.0
    anchor_floor: float = 0.0
    gate: LexicalGate = field(default_factory=LexicalGate)


def fuse(
    signals: dict[str, list[StoreHit]],
    fusion: Fusion,
    sparse_coverage: float = 1.0,
    limit: int | None = None,
    payloads: Callable[[list[StoreHit]], list[dict[str, Any]]] | None = None,
    spans: tuple[int, float] = (MAX_SPANS, SPAN_RATIO),
) -> list[Hit]:
    """Pages ranked by the weighted sum of their per-signal scores; the first
    `limit` of them when given (a search scores ~250 candidate pages for 20 hits,
    and building a hit costs more than scoring it). `payloads` completes the
    shown chunks' payloads when the store searched without them. `spans`: how
    many of a page's chunks its excerpt may show, and how close to its best
    chunk's score another must come."""
    windows = {name: _windowed(hits) for name, hits in signals.items()}
    signals = {name: head + tail for name, (head, tail, _) in windows.items()}
    best = {
        name: {str(h.payload["slug"]): h for h in _best_per_page(signals.get(name, []))}
        for name in SIGNALS
    }
    # -> the pages each signal found within its window: they alone set its scale
    normed = {
        name: [h for h in pages.values() if _chunk_key(h) in windows[name][2]]
        if name in windows
        else []
        for name, pages in best.items()
    }
    ranks = {name: {slug: i + 1 for i, slug in enumerate(pages)} for name, pages in best.items()}
    scores: dict[str, float] = {}
    # -> the gate weighs BM25 across pages; within a page found, the chunk its
    # words hit is still the one that holds them
    within = _weights(fusion, sparse_coverage)
    weights = _gated(within, fusion.gate, sparse_coverage, page_margin(best[SPARSE]))
    for name, weight in weights.items():
        if fusion.method == "minmax":
            part = _minmax(
                list(best[name].values()), normed[name], weight, fusion.min_span.get(name, 0.0)
            )
        else:
            part = {slug: weight / (RRF_K + r) for slug, r in ranks[name].items()}
        for slug, value in part.items():
            scores[slug] = scores.get(slug, 0.0) + value
    excerpts = _excerpt_chunks(signals, best, normed, fusion, within, spans)
    seen = {str(h.payload["slug"]) for pages in normed.values() for h in pages}
    order = sorted(scores, key=lambda slug: (-scores[slug], slug not in seen, slug))
    order = _anchor(order, normed, scores, fusion)
    shown = []
    for slug in order[:limit]:
        page_ranks = {name: ranks[name].get(slug) for name in SIGNALS}
        raw = {name: best[name][slug].score if page_ranks[name] else None for name in SIGNALS}
        shown.append((slug, excerpts[slug], page_ranks, raw))
    chunks = [chunk for _, spans, _, _ in shown for chunk in spans]
    full = iter(payloads(chunks) if payloads else [c.payload for c in chunks])
    return [
        _hit(slug, [next(full) for _ in spans], scores[slug], page_ranks, raw)
        for slug, spans, page_ranks, raw in shown
    ]


def _windowed(hits: list[StoreHit]) -> tuple[list[StoreHit], list[StoreHit], set[Any]]:
    """(the first `WINDOW` chunks, the rest, the window's chunk keys), each part
    with history demoted. Every search fetches at least the window and one
    chunk past it, whatever its k, so scaling scores over the window alone (and
    ranking what lies past it after everything in it) gives the same first
    pages for any k."""
    hits = sorted(hits, key=lambda h: (-h.score, str(h.payload["slug"])))  # ties: fixed order
    cut = WINDOW
    if len(hits) > WINDOW:  # chunks tied with the first one past the window stay out:
        edge = hits[WINDOW].score  # which of a tie a store returns depends on its limit
        while cut > 0 and hits[cut - 1].score <= edge:
            cut -= 1
    head, tail = _history_demoted(hits[:cut]), _history_demoted(hits[cut:])
    return head, tail, {_chunk_key(h) for h in head}


def _history_demoted(hits: list[StoreHit]) -> list[StoreHit]:
    """A chunk of facts that are all no longer current scores `HISTORY_WEIGHT` of
    what it matched, so the page holding the value now ranks above it while a
    question only the old value answers still finds it."""
    if not any(h.payload.get("kind") == HISTORY for h in hits):
        return hits
    scaled = [
        replace(h, score=h.score * HISTORY_WEIGHT) if h.payload.get("kind") == HISTORY else h
        for h in hits
    ]
    return sorted(scaled, key=lambda h: -h.score)


def _anchor(
    order: list[str],
    normed: dict[str, list[StoreHit]],
    scores: dict[str, float],
    fusion: Fusion,
) -> list[str]:
    """`order` with the dense signal's best page (within its window) moved up to
    `ANCHOR_RANK` when its cosine reaches `fusion.anchor_floor` (see `Fusion`);
    its score becomes the midpoint of its new neighbours', so a caller sorting
    by score agrees."""
    dense = normed.get(DENSE, [])
    if fusion.anchor_floor <= 0 or not dense:
        return order
    hit = dense[0]
    top = str(hit.payload["slug"])
    if hit.score < fusion.anchor_floor or top not in scores or top in order[:ANCHOR_RANK]:
        return order
    rest = [slug for slug in order if slug != top]
    above, below = scores[rest[ANCHOR_RANK - 2]], scores[rest[ANCHOR_RANK - 1]]
    scores[top] = (above + below) / 2
    return [*rest[: ANCHOR_RANK - 1], top, *rest[ANCHOR_RANK - 1 :]]


def _weights(fusion: Fusion, sparse_coverage: float) -> dict[str, float]:
    """Each signal's weight for this query: BM25's shrinks with its coverage."""
    out = dict(fusion.weights)
    if SPARSE in out and fusion.min_coverage > 0:
        out[SPARSE] *= min(1.0, sparse_coverage / fusion.min_coverage)
    return out


def _gated(
    weights: dict[str, float], gate: LexicalGate, sparse_coverage: float, margin: float
) -> dict[str, float]:
    """`weights` with BM25's keeping the share the gate's reading of its lexical
    evidence allows (`LexicalGate.keeps`)."""
    if SPARSE not in weights:
        return weights
    return {**weights, SPARSE: weights[SPARSE] * gate.keeps(sparse_coverage, margin)}


def lexical_margin(sparse_hits: list[StoreHit]) -> float:
    """`page_margin` of BM25's pages as `fuse` sees them (windowed, each page's
    best chunk), for fitting the gate offline."""
    head, tail, _ = _windowed(sparse_hits)
    return page_margin({str(h.payload["slug"]): h for h in _best_per_page(head + tail)})


def _excerpt_chunks(
    signals: dict[str, list[StoreHit]],
    best: dict[str, dict[str, StoreHit]],
    normed: dict[str, list[StoreHit]],
    fusion: Fusion,
    weights: dict[str, float],
    spans: tuple[int, float],
) -> dict[str, list[StoreHit]]:
    """The chunk each page shows: the one the signals together score highest, each
    chunk scored like its page would be. A page's best chunk by meaning and its best
    chunk by words are often different chunks, and showing the first signal's
    chunk hid the fact a question named ("joined an activist group") behind one
    that only sounded like it."""
    combined: dict[Any, float] = {}
    chunk_of: dict[Any, StoreHit] = {}
    # -> each page's chunks, best first: the first is its excerpt, a second that
    # scores nearly as well is shown after it (`MAX_SPANS`, `SPAN_RATIO`)
    for name, weight in weights.items():
        hits = signals.get(name, [])
        if not hits or weight <= 0:
            continue
        norm = _chunk_scale(normed[name], fusion, name)
        for rank, hit in enumerate(hits, 1):
            key = _chunk_key(hit)
            chunk_of.setdefault(key, hit)
            combined[key] = combined.get(key, 0.0) + weight * norm(hit.score, rank)
    ranked: dict[str, list[tuple[float, StoreHit]]] = {}
    for key, score in sorted(combined.items(), key=lambda kv: -kv[1]):
        hit = chunk_of[key]
        ranked.setdefault(str(hit.payload["slug"]), []).append((score, hit))
    most, ratio = spans
    out = {
        slug: [chunks[0][1]]
        + [h for s, h in chunks[1:most] if chunks[0][0] > 0 and s >= ratio * chunks[0][0]]
        for slug, chunks in ranked.items()
    }
    for name in SIGNALS:  # a page only a zero-weight signal found keeps that chunk
        for slug, hit in best[name].items():
            out.setdefault(slug, [hit])
    return out


def _chunk_scale(pages: list[StoreHit], fusion: Fusion, name: str) -> Callable[[float, int], float]:
    if fusion.method != "minmax":
        return lambda score, rank: 1.0 / (RRF_K + rank)
    if not pages:
        return lambda score, rank: 0.0
    top = max(h.score for h in pages)
    bottom = min(h.score for h in pages)
    span = max(top - bottom, fusion.min_span.get(name, 0.0))
    return lambda score, rank: _scaled(score, bottom, span)


def _scaled(score: float, bottom: float, span: float) -> float:
    """A score over the window's scale: 0 at its bottom (and past the window,
    whose scores lie below it), 1 at its top; a window of one score: 1 in it."""
    if span > 0:
        return max(0.0, (score - bottom) / span)
    return 1.0 if score >= bottom else 0.0


def _chunk_key(hit: StoreHit) -> Any:
    return hit.point if hit.point is not None else (hit.payload["slug"], hit.payload.get("chunk"))


def _minmax(
    hits: list[StoreHit], window: list[StoreHit], weight: float, min_span: float = 0.0
) -> dict[str, float]:
    """Scores scaled to [0, 1] over the pages found within the window (by at
    least `min_span`; a page past it scores 0), times the signal's weight."""
    if not window:  # every chunk ties with the edge (or none came): nothing to tell apart
        return {str(h.payload["slug"]): 0.0 for h in hits}
    top = max(h.score for h in window)
    bottom = min(h.score for h in window)
    span = max(top - bottom, min_span)
    return {str(h.payload["slug"]): weight * _scaled(h.score, bottom, span) for h in hits}


def _hit(
    slug: str,
    spans: list[dict[str, Any]],
    score: float,
    ranks: dict[str, int | None],
    raw: dict[str, float | None],
) -> Hit:
    payload = spans[0]
    title = str(payload.get("title", slug))
    texts = [chunk_excerpt(str(p.get("text", "")), title) for p in spans]
    return Hit(
        slug=slug,
        title=title,
        kind="page" if payload.get("kind") == HISTORY else str(payload.get("kind", "page")),
        score=score,
        dense_rank=ranks[DENSE],
        sparse_rank=ranks[SPARSE],
        dense_score=raw[DENSE],
        sparse_score=raw[SPARSE],
        excerpt=SPAN_BREAK.join(t for t in texts if t),
        fresh_at=_iso(payload.get("fresh_at")),
        source=payload.get("source"),
        origin_date=payload.get("origin_date"),
        dense_ml_rank=ranks[DENSE_ML],
        dense_ml_score=raw[DENSE_ML],
        quarantine=payload.get("quarantine"),
        meta=payload.get("meta") or None,
    )


def nearest_hits(chunks: list[StoreHit], name: str) -> list[Hit]:
    """Hits from chunks one dense signal found among chosen slugs
    (`VectorStore.nearest_in`, best first): each slug's chunks best first, its
    cosine that signal's. For a page or an episode reached by its lineage
    rather than by search, so no fused score: its cosine stands in."""
    by_slug: dict[str, list[StoreHit]] = {}
    for chunk in chunks:
        by_slug.setdefault(str(chunk.payload.get("slug", "")), []).append(chunk)
    out = []
    for slug, found in by_slug.items():
        if not slug:
            continue
        ranks: dict[str, int | None] = {signal: None for signal in SIGNALS}
        raw: dict[str, float | None] = {signal: None for signal in SIGNALS}
        ranks[name], raw[name] = 1, found[0].score
        out.append(_hit(slug, [c.payload for c in found], found[0].score, ranks, raw))
    return out


def _episode_fields(meta: dict[str, Any] | None) -> dict[str, Any]:
    """An episode hit's session and time span (`session_id`, `from`, `to`)."""
    if not meta:
        return {}
    return {"session_id": meta.get("session_id"), "from": meta.get("from"), "to": meta.get("to")}


def _iso(epoch: Any) -> str | None:
    if not isinstance(epoch, int | float):
        return None
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat().replace("+00:00", "Z")
