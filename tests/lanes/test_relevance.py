"""The sim and fresh lanes over hybrid search hits."""

from __future__ import annotations

from datetime import UTC, datetime

from lanes.relevance import Floors, fresh_lane, sim_lane
from substrate.index import Hit

NOW = datetime(2026, 11, 30, tzinfo=UTC)
FLOORS = Floors(dense=0.4, sparse=3.0)
LOW = Floors(dense=0.2, sparse=1.0)


def hit(slug: str, score: float, dense: float | None, sparse: float | None, at: str | None) -> Hit:
    return Hit(slug, slug.title(), "page", score, 1, 1, dense, sparse, "x", at, None, None)


HITS = [
    hit("old-exact", 0.95, 0.70, 9.0, "2019-01-01T00:00:00Z"),
    hit("new-related", 0.60, 0.30, 1.5, "2026-11-28T00:00:00Z"),
    hit("mid-words", 0.50, 0.10, 4.0, "2026-10-01T00:00:00Z"),
    hit("synthetic", 0.45, 0.60, None, None),
    hit("noise", 0.40, 0.05, 0.2, "2026-11-29T00:00:00Z"),
]


def test_sim_keeps_hits_with_absolute_evidence_in_fused_order() -> None:
    ranked = sim_lane(HITS, FLOORS)
    assert [c.slug for c in ranked] == ["old-exact", "mid-words", "synthetic"]
    assert ranked[0].reason == "matches the turn (cosine 0.70, bm25 9.00)"


def test_fresh_ranks_relevant_recent_pages_newest_first_and_skips_synthetic() -> None:
    ranked = fresh_lane(HITS, LOW, NOW, days=90)
    assert [c.slug for c in ranked] == ["new-related", "mid-words"]
    assert ranked[0].score > ranked[1].score
    assert ranked[0].reason == "dated 2026-11-28"


def test_an_old_page_still_wins_sim_while_fresh_passes_it_over() -> None:
    assert sim_lane(HITS, FLOORS)[0].slug == "old-exact"
    assert "old-exact" not in {c.slug for c in fresh_lane(HITS, LOW, NOW, days=90)}
