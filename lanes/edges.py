"""Learned co-selection edges and the `edges` lane.

Pages selected together on a turn strengthen their edge by 1; every edge
decays by `decay` per recorded turn. Decay is applied lazily (each edge keeps
the turn it was last strengthened and its weight then), so recording a turn
costs the pairs it touches, not the whole graph. The graph is a networkx
graph in memory and `.substrate/edges.json` on disk, rewritten atomically
under a lock on every recorded turn; edges that decayed below `PRUNE` are
dropped on save, which keeps the file bounded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx

from lanes.candidates import Candidate
from substrate.locks import hold_lock
from substrate.safe_files import write_atomic

STATE_VERSION = 1
PRUNE = 0.05


@dataclass
class CoSelectionGraph:
    graph: Any  # networkx.Graph; edge data: weight (at `last`), last (turn)
    turn: int
    decay: float

    @classmethod
    def empty(cls, decay: float) -> CoSelectionGraph:
        return cls(nx.Graph(), 0, decay)

    @classmethod
    def load(cls, path: Path, decay: float) -> CoSelectionGraph:
        """The saved graph; a missing or unreadable file is an empty graph (derived data)."""
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return cls.empty(decay)
        if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
            return cls.empty(decay)
        graph = nx.Graph()
        try:
            for a, b, weight, last in doc["edges"]:
                graph.add_edge(str(a), str(b), weight=float(weight), last=int(last))
            return cls(graph, int(doc["turn"]), decay)
        except (KeyError, TypeError, ValueError):
            return cls.empty(decay)

    def weight(self, a: str, b: str) -> float:
        data = self.graph.get_edge_data(a, b)
        if data is None:
            return 0.0
        return float(data["weight"]) * self.decay ** (self.turn - int(data["last"]))

    def record(self, selected: list[str]) -> None:
        """One turn: every pair selected together gains 1 on top of its decayed weight."""
        self.turn += 1
        for a, b in combinations(sorted(set(selected)), 2):
            self.graph.add_edge(a, b, weight=self.weight(a, b) + 1.0, last=self.turn)

    def neighbours(self, slug: str, threshold: float) -> list[tuple[str, float]]:
        if slug not in self.graph:
            return []
        out = [(other, self.weight(slug, other)) for other in self.graph.neighbors(slug)]
        return sorted(
            ((o, w) for o, w in out if w >= threshold), key=lambda pair: (-pair[1], pair[0])
        )

    def to_json(self) -> dict[str, Any]:
        edges = []
        for a, b in sorted(self.graph.edges()):
            weight = self.weight(a, b)
            if weight >= PRUNE:
                edges.append([a, b, round(weight, 6), self.turn])
        return {"version": STATE_VERSION, "turn": self.turn, "edges": edges}


def record_selection(path: Path, selected: list[str], decay: float) -> CoSelectionGraph:
    """Load, record one turn, save: under a lock, so concurrent turns never lose an update."""
    with hold_lock(path.with_name(path.name + ".lock"), purpose="edges"):
        graph = CoSelectionGraph.load(path, decay)
        graph.record(selected)
        write_atomic(path, json.dumps(graph.to_json(), ensure_ascii=False))
    return graph


def edges_lane(
    graph: CoSelectionGraph, seeds: list[str], threshold: float, known: set[str]
) -> list[Candidate]:
    """Neighbours of the turn's strongest candidates, strongest edge first."""
    best: dict[str, tuple[float, str]] = {}
    for seed in seeds:
        for other, weight in graph.neighbours(seed, threshold):
            if other in known and other not in seeds and weight > best.get(other, (0.0, ""))[0]:
                best[other] = (weight, seed)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return [
        Candidate(slug, "edges", weight, f"often chosen with {seed}")
        for slug, (weight, seed) in ranked
    ]
