"""Selection: quotas, total budget, lane labels, determinism."""

from __future__ import annotations

from lanes.candidates import Candidate
from lanes.select import select, within_room


def lane(name: str, *slugs: str) -> list[Candidate]:
    return [Candidate(s, name, 1.0 / (i + 1), f"{name} #{i}") for i, s in enumerate(slugs)]


PROPOSALS = {
    "sim": lane("sim", "a", "b", "c", "d"),
    "entity": lane("entity", "b", "e"),
    "core": lane("core", "prefs"),
    "fresh": lane("fresh", "d", "f"),
}
QUOTAS = {"core": 1, "entity": 2, "sim": 2, "fresh": 1}


def test_lanes_fill_their_quotas_in_priority_order() -> None:
    picked = select(PROPOSALS, QUOTAS, total=10)
    assert [(s.slug, s.lane) for s in picked] == [
        ("prefs", "core"),
        ("b", "entity"),
        ("e", "entity"),
        ("a", "sim"),
        ("c", "sim"),
        ("d", "fresh"),
    ]


def test_every_proposing_lane_is_listed_with_its_reason() -> None:
    picked = {s.slug: s for s in select(PROPOSALS, QUOTAS, total=10)}
    assert picked["b"].lanes == ["entity", "sim"]
    assert picked["b"].reasons == {"entity": "entity #0", "sim": "sim #1"}
    assert picked["d"].lanes == ["sim", "fresh"]


def test_the_total_budget_caps_the_selection() -> None:
    assert [s.slug for s in select(PROPOSALS, QUOTAS, total=3)] == ["prefs", "b", "e"]


def test_a_lane_without_quota_adds_nothing_and_is_credited_with_nothing() -> None:
    picked = select(PROPOSALS, {"sim": 2}, total=10)
    assert [s.slug for s in picked] == ["a", "b"]
    assert picked[1].lanes == ["sim"]  # entity proposed b too, but entity is switched off


def test_same_inputs_same_selection() -> None:
    runs = {tuple((s.slug, tuple(s.lanes)) for s in select(PROPOSALS, QUOTAS, 5)) for _ in range(5)}
    assert len(runs) == 1


def test_backfill_gives_unused_room_to_the_lanes_next_pages() -> None:
    quotas = {"core": 1, "entity": 3, "sim": 1, "fresh": 1}
    assert [s.slug for s in select(PROPOSALS, quotas, total=5)] == ["prefs", "b", "e", "a", "d"]
    filled = select(PROPOSALS, quotas, total=7, backfill=True)
    assert [(s.slug, s.lane) for s in filled] == [
        ("prefs", "core"),
        ("b", "entity"),
        ("e", "entity"),
        ("a", "sim"),
        ("d", "fresh"),
        ("c", "sim"),  # backfill: sim's next page, then fresh's
        ("f", "fresh"),
    ]


def test_backfill_never_takes_from_core_or_a_switched_off_lane() -> None:
    proposals = {"core": lane("core", "p1", "p2"), "sim": lane("sim", "a", "b")}
    picked = select(proposals, {"core": 1, "sim": 0}, total=5, backfill=True)
    assert [s.slug for s in picked] == ["p1"]


def test_carried_pages_only_take_sim_slots_the_turn_left_empty() -> None:
    hot, edges = lane("hot", "a", "b", "c"), lane("edges", "e", "x")
    # A self-contained question fills the sim quota: only pages it found itself stay.
    full = within_room(lane("sim", "x", "b", "y", "z"), 4, hot, edges)
    assert [[c.slug for c in lane] for lane in full] == [["b"], ["x"]]
    # A vague follow-up finds one page: the three empty slots go to hot first, then edges.
    vague = within_room(lane("sim", "y"), 4, hot, edges)
    assert [[c.slug for c in lane] for lane in vague] == [["a", "b", "c"], []]
    assert [[c.slug for c in lane] for lane in within_room([], 4, hot, edges)] == [
        ["a", "b", "c"],
        ["e"],
    ]
