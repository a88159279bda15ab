"""Each lane's proposer, under the name it is declared with
(`substrate.config.lanes`): the engine asks every declared lane, in order, and
nothing else.

A proposer gets the turn (`Turn`) and what the lanes before it proposed
(`edges` starts from the first picks of `entity` and `sim`). A carried lane
(`hot`, `edges`: context from outside the turn) is then kept within the room
the `sim` lane left (`select.within_room`). A lane declared without a
proposer here fails at import: it would otherwise be silently off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lanes.candidates import Candidate
from lanes.edges import CoSelectionGraph, edges_lane
from lanes.entity import entity_lane
from lanes.recency import core_lane, hot_lane
from lanes.relevance import Floors, fresh_lane, sim_lane
from lanes.select import within_room
from substrate.config.lanes import lane_order, lanes
from substrate.config.tuning import V3Tuning
from substrate.index import EntityMatcher, Hit
from substrate.pages import PageIndex

SEEDS = 3  # the first picks of entity and sim the edges lane starts from


@dataclass(frozen=True)
class Turn:
    """What every lane may read about the turn."""

    message: str
    index: PageIndex
    matcher: EntityMatcher
    hits: list[Hit]
    conversation: Any  # the conversation's state, None without one
    graph: CoSelectionGraph
    now: float
    tuning: V3Tuning


Proposals = Mapping[str, list[Candidate]]
Proposer = Callable[[Turn, Proposals], list[Candidate]]


def _core(turn: Turn, earlier: Proposals) -> list[Candidate]:
    return core_lane(turn.index)


def _entity(turn: Turn, earlier: Proposals) -> list[Candidate]:
    return entity_lane(turn.matcher, turn.message)


def _sim(turn: Turn, earlier: Proposals) -> list[Candidate]:
    v3 = turn.tuning
    return sim_lane(turn.hits, Floors(v3.sim_floor_dense, v3.sim_floor_bm25, v3.sim_floor_ml))


def _fresh(turn: Turn, earlier: Proposals) -> list[Candidate]:
    v3 = turn.tuning
    floors = Floors(v3.fresh_floor_dense, v3.fresh_floor_bm25, v3.fresh_floor_ml)
    return fresh_lane(turn.hits, floors, datetime.fromtimestamp(turn.now, UTC), v3.fresh_days)


def _hot(turn: Turn, earlier: Proposals) -> list[Candidate]:
    if turn.conversation is None:
        return []
    return hot_lane(turn.conversation, turn.tuning.hot_decay, turn.index)


def _edges(turn: Turn, earlier: Proposals) -> list[Candidate]:
    seeds = [c.slug for c in earlier.get("entity", [])[:SEEDS]]
    seeds += [c.slug for c in earlier.get("sim", [])[:SEEDS] if c.slug not in seeds]
    return edges_lane(turn.graph, seeds, turn.tuning.edge_threshold, turn.index.entries)


PROPOSERS: dict[str, Proposer] = {
    "core": _core,
    "entity": _entity,
    "sim": _sim,
    "hot": _hot,
    "edges": _edges,
    "fresh": _fresh,
}
_missing = set(lane_order()) - set(PROPOSERS)
if _missing:
    raise ImportError(f"lanes declared without a proposer: {', '.join(sorted(_missing))}")


def propose(turn: Turn) -> dict[str, list[Candidate]]:
    """Every declared lane's candidates: the turn's own lanes first, in order, then
    the carried ones, kept within the room `sim` left."""
    proposals: dict[str, list[Candidate]] = {}
    declared = lanes()
    for lane in declared:
        if not lane.carried:
            proposals[lane.name] = PROPOSERS[lane.name](turn, proposals)
    carried = [lane.name for lane in declared if lane.carried]
    raw = [PROPOSERS[name](turn, proposals) for name in carried]
    kept = within_room(proposals.get("sim", []), turn.tuning.quota("sim"), *raw)
    proposals.update(zip(carried, kept, strict=True))
    return {lane.name: proposals[lane.name] for lane in declared}
