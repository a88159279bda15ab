"""The `entity` lane: pages whose title or an alias is named in the turn text
(the matcher is the substrate's, shared with consolidation's filer)."""

from __future__ import annotations

from lanes.candidates import Candidate
from substrate.index import EntityMatcher

LANE = "entity"


def entity_lane(matcher: EntityMatcher, text: str) -> list[Candidate]:
    """Named pages, best first: more words named, then more mentions."""
    return [
        Candidate(m.slug, LANE, m.size + 0.1 * min(m.mentions, 5), f"names '{m.name}'")
        for m in matcher.match(text)
    ]
