"""Merge the lanes into one selection: per-lane quotas, one total budget.

Lanes are visited in their declared order (`substrate.config.lanes`); each
may add up to its quota of
pages not yet chosen, until the total is reached. A page proposed by several
lanes is chosen once and lists every lane that proposed it, so the card can
say why it is there. Ties inside a lane were already broken by slug, so the
same inputs always give the same selection.

With `backfill`, room the quotas left unused (a turn that names no entity,
a conversation with no history) goes to the lanes' next candidates, in
their declared order, rather than staying empty. `core` never backfills (its
pages are not about the turn), and a lane with quota 0 is switched off: it
backfills nothing and is not listed among a page's lanes.

`hot` and `edges` carry context from outside the turn, and `within_room`
keeps them from crowding out what the turn itself asked for (see there).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lanes.candidates import Candidate
from substrate.config.lanes import backfill_order, lane_order


@dataclass
class Selected:
    slug: str
    lane: str  # the lane that won the page its place
    score: float  # that lane's score
    lanes: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)


def within_room(
    sim: list[Candidate], quota_sim: int, *carried: list[Candidate]
) -> list[list[Candidate]]:
    """Each carried lane (`hot`, then `edges`) keeps the pages the turn's own
    search also found (they take no extra slot, and being named twice moves
    them up); a page only carried over takes one of the sim slots the turn
    could not fill, shared by the lanes in order. A self-contained question
    fills them, and the last turn's topic or a learned neighbour does not
    dilute its card; a follow-up like "and when was that?" finds little
    above the floors and gets the conversation's pages back. Measured on
    LoCoMo asked as one conversation per sample (`bench/locomo.py --card
    --card-turns sample`): unconditional, two hot slots cost .015 hit and
    two edges slots .008 against none."""
    found = {c.slug for c in sim}
    room = max(0, quota_sim - len(sim))
    kept: list[list[Candidate]] = []
    for lane in carried:
        out = []
        for candidate in lane:
            if candidate.slug in found:
                out.append(candidate)
            elif room > 0:
                out.append(candidate)
                room -= 1
        kept.append(out)
    return kept


def select(
    proposals: dict[str, list[Candidate]],
    quotas: dict[str, int],
    total: int,
    backfill: bool = False,
) -> list[Selected]:
    chosen: dict[str, Selected] = {}
    order = lane_order()
    for lane in order:
        _take(chosen, proposals.get(lane, []), lane, quotas.get(lane, 0), total)
    if backfill:
        for lane in backfill_order():
            if quotas.get(lane, 0) > 0:
                _take(chosen, proposals.get(lane, []), lane, total, total)
    for lane in order:
        if quotas.get(lane, 0) <= 0:
            continue  # a switched-off lane is never credited with a page
        for candidate in proposals.get(lane, []):
            picked = chosen.get(candidate.slug)
            if picked is not None and lane not in picked.lanes:
                picked.lanes.append(lane)
                picked.reasons[lane] = candidate.reason
    return list(chosen.values())


def _take(
    chosen: dict[str, Selected], candidates: list[Candidate], lane: str, cap: int, total: int
) -> None:
    """Add up to `cap` of the lane's candidates not yet chosen, never past `total` pages."""
    taken = 0
    for candidate in candidates:
        if taken >= cap or len(chosen) >= total:
            return
        if candidate.slug in chosen:
            continue
        chosen[candidate.slug] = Selected(candidate.slug, lane, candidate.score)
        taken += 1
