"""The `sim` and `fresh` lanes, both over the turn's hybrid search hits.

The fused score ranks pages against each other but says nothing absolute
(min-max scaling gives the best hit of any query a high score), so both
lanes require absolute evidence of relevance: the page's best chunk has a
dense cosine, a multilingual cosine or a BM25 score at or above a floor. `fresh` uses lower floors
and ranks what passes by how recent its content is (`fresh_at`); pages
without a `fresh_at` (synthetic entries) never appear there, and because
`sim` ranks by relevance alone an old page still wins `sim`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from lanes.candidates import Candidate
from substrate.index import Hit


@dataclass(frozen=True)
class Floors:
    """Minimum dense cosine, BM25 score or multilingual cosine of a page's best chunk."""

    dense: float
    sparse: float
    ml: float = math.inf  # without a multilingual floor, no page is admitted on that cosine

    def admit(self, hit: Hit) -> bool:
        return (
            (hit.dense_score is not None and hit.dense_score >= self.dense)
            or (hit.sparse_score is not None and hit.sparse_score >= self.sparse)
            or (hit.dense_ml_score is not None and hit.dense_ml_score >= self.ml)
        )


def sim_lane(hits: list[Hit], floors: Floors) -> list[Candidate]:
    """Hits that clear the floors, in fused order."""
    return [Candidate(hit.slug, "sim", hit.score, _why(hit)) for hit in hits if floors.admit(hit)]


def fresh_lane(hits: list[Hit], floors: Floors, now: datetime, days: float) -> list[Candidate]:
    """Relevant hits dated within `days` of `now`, newest first."""
    horizon = now - timedelta(days=days)
    dated = []
    for hit in hits:
        if hit.fresh_at is None or not floors.admit(hit):
            continue
        at = datetime.fromisoformat(hit.fresh_at.replace("Z", "+00:00"))
        if horizon <= at <= now + timedelta(days=1):
            dated.append((at, hit))
    dated.sort(key=lambda pair: (-pair[0].timestamp(), pair[1].slug))
    return [
        Candidate(
            hit.slug,
            "fresh",
            1.0 - (now - at).total_seconds() / (days * 86400),
            f"dated {at:%Y-%m-%d}",
        )
        for at, hit in dated
    ]


def _why(hit: Hit) -> str:
    parts = []
    if hit.dense_score is not None:
        parts.append(f"cosine {hit.dense_score:.2f}")
    if hit.sparse_score is not None:
        parts.append(f"bm25 {hit.sparse_score:.2f}")
    if hit.dense_ml_score is not None:
        parts.append(f"multilingual cosine {hit.dense_ml_score:.2f}")
    return "matches the turn (" + ", ".join(parts) + ")"
