"""The v1 turn: a hybrid search of the knowledge-base collection, the notes that
clear a relevance floor, rendered as `<knowledge_base>`. No lanes, no learned
state, no conversation state (the legacy engine had none)."""

from __future__ import annotations

from injector.blocks import SelectedPage
from injector.v1.injection import render_knowledge_base
from substrate.index import Hit, SearchIndex

NOTES = 5
BUDGET_CHARS = 2400
# A note is shown when its best chunk reaches either floor (MiniLM cosine, BM25):
# the v3 sim lane's floors, so an unrelated turn injects nothing on either tier.
FLOOR_DENSE = 0.25
FLOOR_BM25 = 2.0

Picked = tuple[str, list[SelectedPage]]


class V1Engine:
    def __init__(self, search: SearchIndex) -> None:
        """`search` is the knowledge base's own index (`Settings.pkb()`)."""
        self._search = search

    def assemble(self, turn: str) -> Picked:
        if not turn.strip():
            return "", []
        hits = [
            h for h in self._search.search(turn, NOTES, excerpt_chars=BUDGET_CHARS) if _clears(h)
        ]
        block, shown = render_knowledge_base(hits, BUDGET_CHARS)
        return block, [SelectedPage(h.slug, h.title, ("pkb",), h.score, {}) for h in shown]


def _clears(hit: Hit) -> bool:
    return (hit.dense_score or 0.0) >= FLOOR_DENSE or (hit.sparse_score or 0.0) >= FLOOR_BM25
