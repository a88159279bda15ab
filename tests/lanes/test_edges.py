"""Learned co-selection edges: strengthening, decay, persistence, the edges lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanes import edges as edges_module
from lanes.edges import LearnedEdges, edges_lane


def test_pairs_selected_together_strengthen_and_decay_per_turn(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    LearnedEdges(path, 0.5).record(["a", "b", "c"])
    graph = LearnedEdges(path, 0.5).record(["a", "b"])
    assert graph.weight("a", "b") == pytest.approx(1.5)  # 1 decayed once, plus 1
    assert graph.weight("b", "c") == pytest.approx(0.5)
    assert graph.weight("a", "z") == 0.0
    graph = LearnedEdges(path, 0.5).record(["x"])
    assert graph.weight("a", "b") == pytest.approx(0.75)


def test_graph_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    for _ in range(3):
        LearnedEdges(path, 0.9).record(["a", "b"])
    reloaded = LearnedEdges(path, 0.9).current()
    assert reloaded.turn == 3
    assert reloaded.weight("a", "b") == pytest.approx(1 + 0.9 + 0.81)


def test_weak_edges_are_pruned_when_the_journal_is_compacted(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    LearnedEdges(path, 0.1).record(["a", "b"])
    LearnedEdges(path, 0.1).record(["c"])
    edges = LearnedEdges(path, 0.1)
    graph = edges.record(["d"])  # a-b now 0.01 < PRUNE
    edges.compact()
    assert not graph.graph.has_edge("a", "b")  # gone from memory too, not only from the file
    assert path.read_text().count("\n") == 1  # one snapshot line, no turn lines
    assert LearnedEdges(path, 0.1).current().snapshot()["edges"] == []


def test_a_turn_appends_one_line_and_compaction_comes_every_so_many_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edges_module, "COMPACT_EVERY", 4)
    path = tmp_path / "edges.jsonl"
    edges = LearnedEdges(path, 0.9)
    edges.record(["a", "b"])  # no file yet: a snapshot holding this turn
    sizes = [path.stat().st_size]
    for _ in range(5):
        edges.record(["a", "b"])
        sizes.append(path.stat().st_size)
    assert sizes[:5] == sorted(set(sizes[:5]))  # four turns appended, one line each
    assert sizes[5] < sizes[4]  # the fifth found four turn lines and compacted
    assert LearnedEdges(path, 0.9).current().weight("a", "b") == pytest.approx(
        sum(0.9**n for n in range(6))
    )


def test_a_torn_last_line_is_skipped_and_the_next_turn_repairs_the_file(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    LearnedEdges(path, 1.0).record(["a", "b"])
    LearnedEdges(path, 1.0).record(["a", "b"])
    with path.open("ab") as fh:
        fh.write(b'{"selected": ["a", "c"')  # a writer killed mid-line
    assert LearnedEdges(path, 1.0).current().weight("a", "b") == pytest.approx(2.0)
    graph = LearnedEdges(path, 1.0).record(["a", "c"])
    assert graph.weight("a", "c") == pytest.approx(1.0)
    assert graph.weight("a", "b") == pytest.approx(2.0)
    reloaded = LearnedEdges(path, 1.0).current()
    assert (reloaded.weight("a", "b"), reloaded.weight("a", "c")) == (2.0, 1.0)


def test_one_reader_sees_turns_another_process_recorded(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    mine, theirs = LearnedEdges(path, 1.0), LearnedEdges(path, 1.0)
    mine.record(["a", "b"])
    assert mine.current() is mine.current()  # unchanged file: no re-read
    theirs.record(["a", "b"])
    assert mine.current().weight("a", "b") == pytest.approx(2.0)
    assert mine.record(["a", "b"]).weight("a", "b") == pytest.approx(3.0)


def test_corrupt_file_is_an_empty_graph(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    path.write_text('{"version": 2, "turn": "x", "edges": [[1]]}\n{"selected": 3}\n')
    assert LearnedEdges(path, 0.9).current().turn == 0


def test_edges_lane_proposes_strong_neighbours_of_the_seeds(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    for _ in range(3):
        LearnedEdges(path, 1.0).record(["sam", "peanuts", "gone"])
    LearnedEdges(path, 1.0).record(["sam", "lisbon"])
    graph = LearnedEdges(path, 1.0).current()
    lane = edges_lane(graph, ["sam"], threshold=2.0, known={"sam", "peanuts", "lisbon"})
    assert [(c.slug, c.score, c.reason) for c in lane] == [
        ("peanuts", 3.0, "often chosen with sam")
    ]
    low = edges_lane(graph, ["sam"], threshold=1.0, known={"sam", "peanuts", "lisbon"})
    assert [c.slug for c in low] == ["peanuts", "lisbon"]
