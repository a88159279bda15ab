"""The v2 engine's parts: activation seeded by hits and names, spread over links
and learned edges with decay; the router's threshold and window; the rerank."""

from __future__ import annotations

from datetime import UTC, datetime

from injector.v2.activation import Activated, linked_pages, seed, spread
from injector.v2.reranker import rerank
from injector.v2.router import keep, route
from lanes.candidates import Candidate
from lanes.edges import CoSelectionGraph
from substrate.config import parse_config
from substrate.config.tuning import V2Tuning, resolve_v2_tuning
from substrate.index import Hit
from substrate.pages import PageEntry, PageIndex
from substrate.pages.page_file import Link

DEFAULTS = resolve_v2_tuning(parse_config(""))


def tuning(text: str = "") -> V2Tuning:
    return resolve_v2_tuning(parse_config("[memory.v2]\n" + text))


def entry(slug: str, links: tuple[str, ...] = ()) -> PageEntry:
    return PageEntry(
        slug=slug,
        path=f"{slug}.md",
        title=slug,
        aliases=(),
        summary=None,
        tags=(),
        links=tuple(Link(target, "links") for target in links),
        core=False,
        source=None,
        origin_date=None,
        fresh_at=None,
        modified_at=datetime(2024, 1, 1, tzinfo=UTC),
        content_hash=slug,
    )


def index(*entries: PageEntry) -> PageIndex:
    return PageIndex({e.slug: e for e in entries}, ())


def hit(slug: str, score: float) -> Hit:
    return Hit(slug, slug, "page", score, 1, 1, 0.5, 3.0, "", None, None, None)


def test_seeds_scale_hits_by_the_best_and_names_by_their_weight() -> None:
    active = seed(
        [hit("a", 0.8), hit("b", 0.4)], [Candidate("c", "entity", 2.0, "names 'C'")], DEFAULTS
    )
    assert active["a"].score == 1.0 and active["b"].score == 0.5
    assert active["c"].score == DEFAULTS.activation_entity_weight and active["c"].sources == {
        "entity"
    }


def test_activation_spreads_along_links_both_ways_decaying_each_hop() -> None:
    pages = index(entry("a", ("b",)), entry("b", ("c",)), entry("c"), entry("d", ("a",)))
    graph = CoSelectionGraph.empty(0.98)
    active = spread(
        seed([hit("a", 1.0)], [], DEFAULTS), pages, linked_pages(pages), graph, DEFAULTS
    )
    step = DEFAULTS.activation_decay * DEFAULTS.activation_link_weight
    assert active["b"].score == step and active["d"].score == step  # d links to a: both ways
    assert active["c"].score == step * step and active["c"].reason == "linked with b"
    assert active["a"].sources == {"search"}  # the echo back from b adds nothing
    one_hop = tuning("activation_hops = 1")
    active = spread(seed([hit("a", 1.0)], [], one_hop), pages, linked_pages(pages), graph, one_hop)
    assert "c" not in active


def test_learned_edges_carry_activation_by_their_share_of_the_strongest() -> None:
    pages = index(entry("a"), entry("b"), entry("c"))
    graph = CoSelectionGraph.empty(1.0)
    graph.record(["a", "b"])
    graph.record(["a", "b"])
    graph.record(["a", "c"])
    active = spread(seed([hit("a", 1.0)], [], DEFAULTS), pages, {}, graph, DEFAULTS)
    full = DEFAULTS.activation_decay * DEFAULTS.activation_edge_weight
    assert active["b"].score == full and active["b"].sources == {"edge"}
    assert active["c"].score == full / 2


def test_a_hub_keeps_its_strongest_arrival_not_the_sum() -> None:
    pages = index(entry("a", ("hub",)), entry("b", ("hub",)), entry("hub"))
    seeds = seed([hit("a", 1.0), hit("b", 1.0)], [], DEFAULTS)
    active = spread(seeds, pages, linked_pages(pages), CoSelectionGraph.empty(0.98), DEFAULTS)
    assert active["hub"].score == DEFAULTS.activation_decay * DEFAULTS.activation_link_weight


def test_the_router_keeps_pages_over_its_threshold_within_its_window() -> None:
    active = {s: Activated(v) for s, v in {"a": 1.0, "b": 0.5, "c": 0.1, "d": 0.3}.items()}
    assert route(active, tuning("router_threshold = 0.2")) == ["a", "b", "d"]
    assert route(active, DEFAULTS) == ["a", "b"]  # the default threshold, 0.4
    assert route(active, tuning("router_threshold = 0.2\nrerank_candidates = 2")) == ["a", "b"]
    assert route(active, tuning("router_threshold = 0.6")) == ["a"]
    ranked = [("a", 0.9), ("b", 0.5), ("d", 0.2)]
    assert keep(ranked, tuning("router_max_pages = 2")) == [("a", 0.9), ("b", 0.5)]


def test_the_reranker_lifts_a_neighbour_the_turn_is_actually_about() -> None:
    active = {"hit": Activated(1.0), "near": Activated(0.3), "far": Activated(0.3)}
    cosine = {"hit": 0.2, "near": 0.9, "far": 0.05}
    ranked = rerank(["hit", "near", "far"], active, cosine, tuning("rerank_weight = 0.5"))
    assert [slug for slug, _ in ranked] == ["hit", "near", "far"]
    ranked = rerank(["hit", "near", "far"], active, cosine, tuning("rerank_weight = 0.9"))
    assert [slug for slug, _ in ranked] == ["near", "hit", "far"]
    only_activation = rerank(["hit", "near"], active, cosine, tuning("rerank_weight = 0.0"))
    assert only_activation == [("hit", 1.0), ("near", 0.3)]
