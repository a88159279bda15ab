"""Learned co-selection edges and the `edges` lane.

Pages selected together on a turn strengthen their edge by 1; every edge
decays by `decay` per recorded turn. Decay is applied lazily (each edge keeps
the turn it was last strengthened and its weight then), so recording a turn
costs the pairs it touches, not the whole graph. The graph is a networkx
graph in memory and `.substrate/edges.json` on disk, rewritten atomically
under a lock on every recorded turn; edges that decayed below `PRUNE` are
dropped on save, in memory and on disk, which keeps the graph bounded (with
the default decay an edge not chosen again is gone after about 150 turns).

`LearnedEdges` is how a long-lived reader holds the graph: it re-reads the
file only when the file changed (another process recorded a turn), so a turn
costs a stat to read the graph and one rewrite to record. The file is derived
state rewritten every turn, so it is replaced atomically but not fsynced: a
killed process loses nothing, an OS crash may lose the last turns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Container
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

    def prune(self) -> None:
        weak = [(a, b) for a, b in self.graph.edges() if self.weight(a, b) < PRUNE]
        self.graph.remove_edges_from(weak)
        self.graph.remove_nodes_from([n for n in list(self.graph) if self.graph.degree(n) == 0])

    def to_json(self) -> dict[str, Any]:
        edges = []
        for a, b in sorted(self.graph.edges()):
            weight = self.weight(a, b)
            if weight >= PRUNE:
                edges.append([a, b, round(weight, 6), self.turn])
        return {"version": STATE_VERSION, "turn": self.turn, "edges": edges}


class LearnedEdges:
    """The co-selection graph at `path`, cached until the file changes."""

    def __init__(self, path: Path, decay: float) -> None:
        self._path = path
        self._lock = path.with_name(path.name + ".lock")
        self._decay = decay
        self._graph: CoSelectionGraph | None = None
        self._seen: tuple[int, int, int] | None = None

    def current(self) -> CoSelectionGraph:
        signature = self._signature()
        if self._graph is None or signature != self._seen:
            self._graph, self._seen = CoSelectionGraph.load(self._path, self._decay), signature
        return self._graph

    def record(self, selected: list[str]) -> CoSelectionGraph:
        """Record one turn and save: under a lock, so concurrent turns never lose an update."""
        with hold_lock(self._lock, purpose="edges"):
            graph = self.current()
            graph.record(selected)
            graph.prune()
            write_atomic(self._path, json.dumps(graph.to_json(), ensure_ascii=False), durable=False)
            self._seen = self._signature()
        return graph

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self._path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)


def edges_lane(
    graph: CoSelectionGraph, seeds: list[str], threshold: float, known: Container[str]
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
