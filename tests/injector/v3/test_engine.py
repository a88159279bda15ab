"""The v3 engine's choice around the lanes: search's first hits always on the card."""

from __future__ import annotations

from injector.v3.engine import SEARCH_TOP, with_search_top
from lanes.select import Selected
from substrate.index import Hit


def hit(slug: str, score: float) -> Hit:
    return Hit(slug, slug, "page", score, 1, 1, 0.5, 1.0, "text", None, None, None)


def test_search_s_first_hits_join_the_card_in_place_of_the_least_needed_pages() -> None:
    chosen = [
        Selected("core/me", "core", 1.0, ["core"]),
        Selected("a", "sim", 0.9, ["sim"]),
        Selected("b", "hot", 0.5, ["hot"]),
        Selected("c", "room", 0.1, ["room"]),
    ]
    top = [hit("a", 0.9), hit("x", 0.8), hit("y", 0.7)]
    out = with_search_top(chosen, top, most=4)
    slugs = [s.slug for s in out]
    assert {"a", "x", "y", "core/me"} <= set(slugs) and len(out) == 4
    assert "c" not in slugs and "b" not in slugs  # the last chosen go first, core stays
    added = next(s for s in out if s.slug == "x")
    assert added.lanes == [SEARCH_TOP] and "ranks it 2" in added.reasons[SEARCH_TOP]
    assert with_search_top(chosen, [], most=4) == chosen
    roomy = with_search_top(chosen, top, most=8)
    assert [s.slug for s in roomy] == ["core/me", "a", "b", "c", "x", "y"]  # room: nothing leaves
