"""What every lane returns: a page it proposes for this turn, with a score and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    slug: str
    lane: str
    score: float
    reason: str
