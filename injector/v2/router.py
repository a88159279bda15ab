"""The router: which activated pages go on to the reranker, and which it keeps.

Pages at or above `router_threshold` (activation, where the turn's best hit is
`activation_hit_weight`) go on, strongest first, at most `rerank_candidates`
of them; after the rerank the best `router_max_pages` are kept, and the block
renderer cuts them to `router_budget_chars`."""

from __future__ import annotations

from injector.v2.activation import Activated
from substrate.config.tuning import V2Tuning


def route(active: dict[str, Activated], tuning: V2Tuning) -> list[str]:
    passing = [(slug, a.score) for slug, a in active.items() if a.score >= tuning.router_threshold]
    passing.sort(key=lambda item: (-item[1], item[0]))
    return [slug for slug, _ in passing[: tuning.rerank_candidates]]


def keep(ranked: list[tuple[str, float]], tuning: V2Tuning) -> list[tuple[str, float]]:
    return ranked[: tuning.router_max_pages]
