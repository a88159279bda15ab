"""The `hot` and `core` lanes: pages kept in view by the conversation and by the user."""

from __future__ import annotations

from lanes.candidates import Candidate
from lanes.conversations import Conversation
from substrate.pages import PageIndex


def hot_lane(conversation: Conversation, decay: float, known: PageIndex) -> list[Candidate]:
    """Pages selected in recent turns; a turn `n` turns ago counts `decay ** n`.

    Pages deleted since they were selected are dropped."""
    scores: dict[str, float] = {}
    for age, turn in enumerate(reversed(conversation.turns)):
        weight = decay**age
        for slug in turn.selected:
            if slug in known.entries:
                scores[slug] = scores.get(slug, 0.0) + weight
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Candidate(slug, "hot", score, "selected in recent turns") for slug, score in ranked]


def core_lane(index: PageIndex) -> list[Candidate]:
    """Pages marked `core: true`: always eligible (the selector caps how many)."""
    return [Candidate(slug, "core", 1.0, "marked core") for slug in index.core_slugs]
