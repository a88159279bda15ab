"""The reranker: each routed page's final score blends its activation (over the
strongest) with the turn's dense cosine to the page's best chunk, by
`rerank_weight`. A page reached only through links or edges has no search
evidence of its own; the cosine is what tells a relevant neighbour from a
merely connected one."""

from __future__ import annotations

from injector.v2.activation import Activated
from substrate.config.tuning import V2Tuning


def rerank(
    routed: list[str],
    active: dict[str, Activated],
    cosine: dict[str, float],
    tuning: V2Tuning,
) -> list[tuple[str, float]]:
    if not routed:
        return []
    top = max(active[slug].score for slug in routed)
    weight = tuning.rerank_weight
    scored = [
        (slug, (1 - weight) * active[slug].score / top + weight * max(cosine.get(slug, 0.0), 0.0))
        for slug in routed
    ]
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored
