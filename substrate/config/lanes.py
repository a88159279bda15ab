"""The v3 lanes, declared once: name, priority order, default quota, whether the
lane backfills unused room, whether its picks teach the learned edges, whether
it carries context from outside the turn, and what it proposes.

Everything that lists lanes reads this table when it runs: the selection's
order and backfill (`lanes.select`), the engine's proposals (each lane's
proposer is registered under its name in `lanes.registry`, and a lane without
one fails at import), the `memory.v3.quota_<name>` config keys (`keys`), the
template, `docs/configuration.md` and the card docs' lane table. A lane
declared here is selected, configured and documented; one missing from here
is not a lane. It lives in the config room because config keys derive from it
and `substrate` imports nothing above itself.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lane:
    name: str
    quota: int  # pages it may add by default (0: off until configured)
    backfills: bool  # takes room other lanes left unused
    learns_edges: bool  # its picks strengthen the co-selection graph
    carried: bool  # context from outside the turn, kept within the sim lane's room
    about: str  # what it proposes: the config help and the docs


LANES: tuple[Lane, ...] = (
    Lane("core", 2, False, False, False, "pages marked `core: true`, on every card"),
    Lane("entity", 3, True, True, False, "pages whose title or alias the turn names"),
    Lane("sim", 4, True, True, False, "the turn's hybrid search hits above the floors"),
    Lane("hot", 2, True, True, True, "pages the conversation's recent cards showed"),
    Lane("edges", 2, True, False, True, "pages learned to go with the turn's first picks"),
    Lane("fresh", 0, True, True, False, "recently dated pages among the hits (off by default)"),
)


def lanes() -> tuple[Lane, ...]:
    """The table as it stands (read at call time, so every consumer agrees)."""
    return LANES


def lane_order() -> tuple[str, ...]:
    return tuple(lane.name for lane in LANES)


def backfill_order() -> tuple[str, ...]:
    return tuple(lane.name for lane in LANES if lane.backfills)


def learns_edges() -> frozenset[str]:
    return frozenset(lane.name for lane in LANES if lane.learns_edges)


def quota_key(name: str) -> str:
    return f"quota_{name}"


def lane_table() -> str:
    """The declared lanes as the markdown table `docs/read-path.md` holds."""
    rows = [
        "| lane | quota | backfills | teaches edges | carried | proposes |",
        "|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "no"}
    for lane in LANES:
        rows.append(
            f"| `{lane.name}` | {lane.quota} | {yes[lane.backfills]} | {yes[lane.learns_edges]} "
            f"| {yes[lane.carried]} | {lane.about} |"
        )
    return "\n".join(rows)
