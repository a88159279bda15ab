"""Learned co-selection edges: strengthening, decay, persistence, the edges lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanes.edges import CoSelectionGraph, LearnedEdges, edges_lane


def test_pairs_selected_together_strengthen_and_decay_per_turn(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    LearnedEdges(path, 0.5).record(["a", "b", "c"])
    graph = LearnedEdges(path, 0.5).record(["a", "b"])
    assert graph.weight("a", "b") == pytest.approx(1.5)  # 1 decayed once, plus 1
    assert graph.weight("b", "c") == pytest.approx(0.5)
    assert graph.weight("a", "z") == 0.0
    graph = LearnedEdges(path, 0.5).record(["x"])
    assert graph.weight("a", "b") == pytest.approx(0.75)


def test_graph_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    for _ in range(3):
        LearnedEdges(path, 0.9).record(["a", "b"])
    reloaded = CoSelectionGraph.load(path, decay=0.9)
    assert reloaded.turn == 3
    assert reloaded.weight("a", "b") == pytest.approx(1 + 0.9 + 0.81)


def test_weak_edges_are_pruned_on_save(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    LearnedEdges(path, 0.1).record(["a", "b"])
    LearnedEdges(path, 0.1).record(["c"])
    graph = LearnedEdges(path, 0.1).record(["d"])  # a-b now 0.01 < PRUNE
    assert graph.to_json()["edges"] == []
    assert not graph.graph.has_edge("a", "b")  # gone from memory too, not only from the file


def test_one_reader_sees_turns_another_process_recorded(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    mine, theirs = LearnedEdges(path, 1.0), LearnedEdges(path, 1.0)
    mine.record(["a", "b"])
    assert mine.current() is mine.current()  # unchanged file: no re-read
    theirs.record(["a", "b"])
    assert mine.current().weight("a", "b") == pytest.approx(2.0)
    assert mine.record(["a", "b"]).weight("a", "b") == pytest.approx(3.0)


def test_corrupt_file_is_an_empty_graph(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    path.write_text('{"version": 1, "turn": "x", "edges": [[1]]}')
    assert CoSelectionGraph.load(path, 0.9).turn == 0


def test_edges_lane_proposes_strong_neighbours_of_the_seeds(tmp_path: Path) -> None:
    path = tmp_path / "edges.json"
    for _ in range(3):
        LearnedEdges(path, 1.0).record(["sam", "peanuts", "gone"])
    LearnedEdges(path, 1.0).record(["sam", "lisbon"])
    graph = CoSelectionGraph.load(path, decay=1.0)
    lane = edges_lane(graph, ["sam"], threshold=2.0, known={"sam", "peanuts", "lisbon"})
    assert [(c.slug, c.score, c.reason) for c in lane] == [
        ("peanuts", 3.0, "often chosen with sam")
    ]
    low = edges_lane(graph, ["sam"], threshold=1.0, known={"sam", "peanuts", "lisbon"})
    assert [c.slug for c in low] == ["peanuts", "lisbon"]
