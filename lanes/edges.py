"""Learned co-selection edges and the `edges` lane.

Pages selected together on a turn strengthen their edge by 1; every edge
decays by `decay` per recorded turn. Decay is applied lazily (each edge keeps
the turn it was last strengthened and its weight then), so recording a turn
costs the pairs it touches, not the whole graph.

On disk the graph is a journal, `.substrate/edges.jsonl`: a snapshot line
(every edge with its weight) followed by one line per recorded turn (the
pages selected together). Recording a turn appends one short line under a
lock; rewriting the whole graph on every turn cost O(edges) per turn, which
was most of a turn at a few thousand edges. Once `COMPACT_EVERY` turn lines
have piled up the journal is compacted: edges that decayed below `PRUNE` are
dropped (in memory and on disk) and a fresh snapshot replaces the file
atomically, which keeps both the file and the graph bounded (with the default decay an edge not
chosen again is gone after about 150 turns).

`LearnedEdges` is how a long-lived reader holds the graph: a stat tells it
whether the file grew (another process appended turns: it reads only the new
lines) or was replaced (a compaction: it reloads). The file is derived state,
appended and replaced without fsync: a killed process loses at most the line
it was writing (a torn last line is skipped and compacted away), an OS crash
may lose the last turns.
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
from lanes.health import note_reset
from substrate.errors import InvalidInputError
from substrate.safety import (
    append_bytes,
    hold_lock,
    read_file_at,
    read_regular_file,
    write_atomic,
)

STATE_VERSION = 2
PRUNE = 0.05
COMPACT_EVERY = 256
MAX_JOURNAL_BYTES = 256 * 1024 * 1024


@dataclass
class CoSelectionGraph:
    graph: Any  # networkx.Graph; edge data: weight (at `last`), last (turn)
    turn: int
    decay: float

    @classmethod
    def empty(cls, decay: float) -> CoSelectionGraph:
        return cls(nx.Graph(), 0, decay)

    @classmethod
    def from_snapshot(cls, line: bytes, decay: float) -> CoSelectionGraph | None:
        """The journal's first line; None when it does not parse (derived data: the
        reader starts empty, and says so)."""
        try:
            doc = json.loads(line)
        except ValueError:
            return None
        if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
            return None
        graph = nx.Graph()
        try:
            for a, b, weight, last in doc["edges"]:
                graph.add_edge(str(a), str(b), weight=float(weight), last=int(last))
            return cls(graph, int(doc["turn"]), decay)
        except (KeyError, TypeError, ValueError):
            return None

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

    def snapshot(self) -> dict[str, Any]:
        edges = []
        for a, b in sorted(self.graph.edges()):
            weight = self.weight(a, b)
            if weight >= PRUNE:
                edges.append([a, b, round(weight, 6), self.turn])
        return {"version": STATE_VERSION, "turn": self.turn, "edges": edges}


@dataclass
class _Journal:
    """What a reader has applied of the file: up to `offset` of inode `inode`,
    whose size was `size` when last read (more than `offset`: a partial line)."""

    graph: CoSelectionGraph
    inode: int
    offset: int
    turns: int  # turn lines since the snapshot
    size: int


def _turn_line(selected: list[str]) -> bytes:
    return (json.dumps({"selected": sorted(set(selected))}, ensure_ascii=False) + "\n").encode()


def _apply(journal: _Journal, data: bytes) -> None:
    """Apply the complete lines of `data` (the file from `journal.offset` on).

    A line still being written (no newline yet) is left for the next read; a
    line that does not parse (torn by a crash) is skipped."""
    end = data.rfind(b"\n") + 1
    for line in data[:end].splitlines():
        selected = _turn(line)
        if selected is not None:
            journal.graph.record(selected)
            journal.turns += 1
    journal.offset += end


def _turn(line: bytes) -> list[str] | None:
    """One turn line's selected pages; None when it does not parse (torn)."""
    try:
        selected = json.loads(line)["selected"]
    except (ValueError, TypeError, KeyError):
        return None
    return [str(s) for s in selected] if isinstance(selected, list) else None


def journal_problem(path: Path) -> str | None:
    """Why the journal at `path` would lose learned state for a reader, or None
    (an absent journal is an empty graph, not a problem)."""
    try:
        data = read_regular_file(path, MAX_JOURNAL_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    except InvalidInputError as exc:
        return f"cannot be read ({exc.message})"
    head, _, rest = data.partition(b"\n")
    if CoSelectionGraph.from_snapshot(head, 1.0) is None:
        return "its snapshot line does not parse"
    torn = sum(1 for line in rest.splitlines() if _turn(line) is None)
    return f"{torn} turn lines do not parse" if torn else None


class LearnedEdges:
    """The co-selection graph journalled at `path`, read incrementally as it grows."""

    def __init__(self, path: Path, decay: float) -> None:
        self._path = path
        self._lock = path.with_name(path.name + ".lock")
        self._decay = decay
        self._journal: _Journal | None = None

    def current(self) -> CoSelectionGraph:
        return self._catch_up().graph

    def record(self, selected: list[str]) -> CoSelectionGraph:
        """Record one turn: under a lock, so concurrent turns never lose an update."""
        with hold_lock(self._lock, purpose="edges"):
            journal = self._catch_up()
            journal.graph.record(selected)
            torn = journal.size != journal.offset  # under the lock: a writer died mid-line
            if torn or journal.inode == 0 or journal.turns >= COMPACT_EVERY:
                self._compact(journal.graph)
            else:
                line = _turn_line(selected)
                append_bytes(self._path, line, durable=False)
                journal.offset += len(line)
                journal.size = journal.offset
                journal.turns += 1
            return journal.graph

    def compact(self) -> None:
        """Prune weak edges and rewrite the journal as one snapshot."""
        with hold_lock(self._lock, purpose="edges"):
            self._compact(self._catch_up().graph)

    def keep_only(self, slugs: Container[str]) -> int:
        """Drop every page not among `slugs` from the graph and rewrite the
        journal (a purge: a removed page's name leaves the derived files); how
        many pages went."""
        with hold_lock(self._lock, purpose="edges"):
            graph = self._catch_up().graph
            gone = [n for n in list(graph.graph) if n not in slugs]
            graph.graph.remove_nodes_from(gone)
            self._compact(graph)
            return len(gone)

    def _compact(self, graph: CoSelectionGraph) -> None:
        graph.prune()
        snapshot = (json.dumps(graph.snapshot(), ensure_ascii=False) + "\n").encode()
        write_atomic(self._path, snapshot, durable=False)
        size = len(snapshot)
        self._journal = _Journal(graph, os.stat(self._path).st_ino, size, 0, size)

    def _catch_up(self) -> _Journal:
        try:
            st = os.stat(self._path)
        except OSError:
            if self._journal is None or self._journal.inode != 0:
                self._journal = _Journal(CoSelectionGraph.empty(self._decay), 0, 0, 0, 0)
            return self._journal
        journal = self._journal
        if journal is None or journal.inode != st.st_ino or st.st_size < journal.offset:
            journal = self._journal = self._load()
        elif st.st_size > journal.offset:
            try:
                grown, _, _ = read_file_at(self._path, MAX_JOURNAL_BYTES, journal.offset)
            except (OSError, InvalidInputError):
                grown = b""  # replaced meanwhile: the next turn reloads it
            _apply(journal, grown)
        journal.size = st.st_size
        return journal

    def _load(self) -> _Journal:
        try:
            data, inode, _ = read_file_at(self._path, MAX_JOURNAL_BYTES)
        except (OSError, InvalidInputError):
            return _Journal(CoSelectionGraph.empty(self._decay), 0, 0, 0, 0)
        head_end = data.find(b"\n") + 1
        if head_end == 0:  # no complete snapshot line: the next record rewrites the file
            return _Journal(CoSelectionGraph.empty(self._decay), inode, 0, 0, len(data))
        graph = CoSelectionGraph.from_snapshot(data[:head_end], self._decay)
        if graph is None:
            note_reset("learned edges", self._path, "its snapshot line does not parse")
            graph = CoSelectionGraph.empty(self._decay)
        journal = _Journal(
            graph,
            inode,
            head_end,
            0,
            len(data),
        )
        _apply(journal, data[head_end:])
        return journal


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
