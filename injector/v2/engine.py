"""The v2 engine's turn: search and name → activation → spread → route → rerank →
its `<memory>` block.

It reads the same concept pages and collection as v3 and the same learned
co-selection edges, and records the pages it shows together as edges too, so a
workspace that moves to v3 keeps what v2 learned. It keeps no per-conversation
state: v2 has no `hot` lane and no frozen card (the voice front door gets no
block on v2).
"""

from __future__ import annotations

from injector.blocks import SelectedPage
from injector.page_state import PageState
from injector.render import excerpt_shares
from injector.v2.activation import Activated, Neighbours, linked_pages, seed, spread
from injector.v2.injection import V2Page, render_block
from injector.v2.reranker import rerank
from injector.v2.router import keep, route
from lanes.entity import entity_lane
from lanes.health import note_unsaved
from substrate.config import Settings
from substrate.index import SearchIndex
from substrate.index.bm25 import query_terms, question_keys
from substrate.index.excerpts import excerpt_for
from substrate.pages import PageEntry, PageIndex

SEARCH_K = 20

Picked = tuple[str, list[SelectedPage]]


class V2Engine:
    def __init__(self, settings: Settings, search: SearchIndex, state: PageState) -> None:
        self._search = search
        self._state = state
        self._tuning = settings.v2  # resolved once, not on every turn
        self._links: tuple[PageIndex, Neighbours] | None = None

    def assemble(self, turn: str) -> Picked:
        """The block for the turn's text (already cut to `query_bytes`)."""
        if not turn.strip():
            return "", []
        tuning, state = self._tuning, self._state
        vectors = self._search.embed_query(turn)
        budget = tuning.router_budget_chars
        hits = self._search.search_embedded(turn, vectors, SEARCH_K, excerpt_chars=budget)
        state.pages.current()  # a due refresh happens here, outside the lock
        with state.lock:
            index = state.newest()
            named = entity_lane(state.matcher(index), turn)
            graph = state.edges.current()
            hits = [h for h in hits if h.slug in index.entries]
            active = spread(seed(hits, named, tuning), index, self._linked(index), graph, tuning)
        routed = route(active, tuning)
        best = self._search.best_chunks(vectors, routed)
        cosine = {slug: score for slug, (score, _) in best.items()}
        kept = keep(rerank(routed, active, cosine, tuning), tuning)
        terms = {*query_terms(turn), *question_keys(turn)}
        found = {h.slug: h.excerpt for h in hits}
        shares = excerpt_shares([score for _, score in kept], budget)
        pages = []
        for (slug, score), share in zip(kept, shares, strict=True):
            entry = index.entries[slug]
            text = found.get(slug) or (
                _without_title(best[slug][1], entry.title) if slug in best else ""
            )
            excerpt = excerpt_for(text, terms, share) if text else state.page_excerpt(entry)
            pages.append(_page(entry, score, active[slug], excerpt))
        block, shown = render_block(pages, budget)
        selected = [
            SelectedPage(p.slug, p.title, p.via, p.score, {"v2": active[p.slug].reason})
            for p in shown
        ]
        if len(selected) > 1:
            try:
                with state.lock:
                    state.edges.record([s.slug for s in selected])
            except OSError as exc:  # derived: a full disk costs the edge, not the block
                note_unsaved("learned edges", exc)
        return block, selected

    def _linked(self, index: PageIndex) -> Neighbours:
        """Both directions of every authored link, rebuilt only when the index changes."""
        if self._links is None or self._links[0] is not index:
            self._links = (index, linked_pages(index))
        return self._links[1]


def _page(entry: PageEntry, score: float, act: Activated, excerpt: str) -> V2Page:
    """`excerpt`: the search hit's, else the page's best dense chunk's, re-centred
    on the turn's words within the page's share of the block."""
    return V2Page(
        slug=entry.slug,
        title=entry.title,
        via=tuple(s for s in ("search", "entity", "link", "edge") if s in act.sources),
        score=score,
        source=entry.source,
        quarantine=entry.quarantine,
        excerpt=excerpt,
    )


def _without_title(chunk: str, title: str) -> str:
    """A chunk's text starts with its page's title (for the embedder); the block
    shows the title in the tag already."""
    return chunk.removeprefix(f"{title}\n\n")
