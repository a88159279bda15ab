"""Spreading activation over the concept pages.

A turn seeds activation on the pages its hybrid search found (each hit's fused
score over the best one, times `activation_hit_weight`) and on the pages it
names (`activation_entity_weight`). Activation then spreads for
`activation_hops` hops along authored links (both directions: a link is an
association whichever page wrote it) and learned co-selection edges (weighted
by the edge over the strongest edge of its page), decaying by
`activation_decay` each hop. A page keeps its strongest arrival, not the sum:
a hub linked from everywhere would otherwise outrank the pages the turn was
about.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lanes.candidates import Candidate
from lanes.edges import CoSelectionGraph
from substrate.config.tuning import V2Tuning
from substrate.index import Hit
from substrate.pages import PageIndex

Neighbours = dict[str, set[str]]


@dataclass
class Activated:
    score: float
    sources: set[str] = field(default_factory=set)
    reason: str = ""


def seed(hits: list[Hit], named: list[Candidate], tuning: V2Tuning) -> dict[str, Activated]:
    """Activation from what the turn itself found and named."""
    out: dict[str, Activated] = {}
    top = max((h.score for h in hits), default=0.0)
    for rank, hit in enumerate(hits, 1):
        if top > 0 and hit.score > 0:
            score = tuning.activation_hit_weight * hit.score / top
            _raise(out, hit.slug, score, "search", f"search rank {rank}")
    best = max((c.score for c in named), default=0.0)
    for cand in named:
        if best > 0:
            score = tuning.activation_entity_weight * cand.score / best
            _raise(out, cand.slug, score, "entity", cand.reason)
    return out


def spread(
    active: dict[str, Activated],
    index: PageIndex,
    links: Neighbours,
    graph: CoSelectionGraph,
    tuning: V2Tuning,
) -> dict[str, Activated]:
    """`active` after `activation_hops` hops over links and learned edges."""
    frontier = dict(active)
    for _ in range(tuning.activation_hops):
        arrived: dict[str, Activated] = {}
        for slug, act in frontier.items():
            passed = act.score * tuning.activation_decay
            for other in links.get(slug, ()):
                if other in index.entries:
                    score = passed * tuning.activation_link_weight
                    _raise(arrived, other, score, "link", f"linked with {slug}")
            for other, share in _edge_shares(graph, slug):
                if other in index.entries:
                    score = passed * tuning.activation_edge_weight * share
                    _raise(arrived, other, score, "edge", f"chosen with {slug}")
        frontier = {}
        for slug, act in arrived.items():
            held = active.get(slug)
            if held is None or act.score > held.score:
                frontier[slug] = act  # spreads on only from where it grew
            if held is None:
                active[slug] = act
                continue
            if act.score > held.score:  # a weaker echo (back to its source) adds nothing
                held.score, held.reason = act.score, act.reason
                held.sources |= act.sources
    return active


def linked_pages(index: PageIndex) -> Neighbours:
    """Every page's authored links, both directions."""
    out: Neighbours = {}
    for slug, entry in index.entries.items():
        for target in entry.link_targets():
            if target != slug:
                out.setdefault(slug, set()).add(target)
                out.setdefault(target, set()).add(slug)
    return out


def _edge_shares(graph: CoSelectionGraph, slug: str) -> list[tuple[str, float]]:
    if slug not in graph.graph:
        return []
    weights = [(other, graph.weight(slug, other)) for other in graph.graph.neighbors(slug)]
    strongest = max((w for _, w in weights), default=0.0)
    return [(o, w / strongest) for o, w in weights if strongest > 0 and w > 0]


def _raise(out: dict[str, Activated], slug: str, score: float, source: str, why: str) -> None:
    held = out.setdefault(slug, Activated(0.0))
    held.sources.add(source)
    if score > held.score:
        held.score = score
        held.reason = why or held.reason
