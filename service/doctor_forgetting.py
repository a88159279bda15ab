"""`memory doctor`'s proof that forgetting is whole: `forgotten_residue`.

Anything left of a forgotten item (`substrate.forgetting.residue`): a forget
a killed process left half done, a live record whose lineage reaches a
forgotten message or session, a forgotten fact's words found again in a
product file (by id, or by its keyed fingerprint), a forgotten message
logged again, and what an older release kept of a forget. Each is named
without its words; `--fix` finishes the cascade (the forget runs again over
them), which is a change of `memory/` the person already asked for.
"""

from __future__ import annotations

from pathlib import Path

from substrate import PageIndex, Settings
from substrate.index.consistency import Problem
from substrate.sessions import open_session_log

FINISH_FORGET = "finish_forget"
KIND = "forgotten_residue"


CLEAR_COMPACTION = "clear_compaction"
CLEAR_REPLAYS = "clear_replays"


def replay_problems(settings: Settings) -> list[Problem]:
    """The replay store (`service.replays`) is emptied by every forget and purge:
    a kept answer made before the last forget is one a killed forget left, and
    may hold what it forgot (an answer to a remember, a correction)."""
    from service.replays import replay_store
    from substrate.lineage import read_tombstones

    times = [
        r["at"]
        for r in read_tombstones(settings.workspace).rows
        if isinstance(r.get("at"), (int, float))
    ]
    if not times:
        return []
    store = replay_store(settings.workspace.state_dir)
    kept = store.kept_before(max(times))
    if not kept:
        return []
    return [
        Problem(
            KIND,
            f"the request-key store keeps {kept} answers made before the last forget",
            "empty it (`memory doctor --fix`)",
            CLEAR_REPLAYS,
            (str(settings.workspace.state_dir),),
        )
    ]


def clear_replays(problems: list[Problem]) -> None:
    from service.replays import replay_store

    for state in {p.subject[0] for p in problems if p.repair == CLEAR_REPLAYS}:
        replay_store(Path(state)).clear()


def compaction_problems(settings: Settings) -> list[Problem]:
    """A compaction of the vector store killed midway leaves the old shard
    beside the new one: every point a forget or a purge took out is still in
    it, so it is a forgotten residue too."""
    from substrate.index.qdrant_edge import compaction_leftovers

    shard = settings.workspace.index_dir / "qdrant"
    return [
        Problem(
            KIND,
            f"a compaction cut short left {left.name} beside the vector store: it may hold "
            "points a forget or a purge took out",
            "remove it (`memory doctor --fix`)",
            CLEAR_COMPACTION,
            (str(shard),),
        )
        for left in compaction_leftovers(shard)
    ]


def clear_compaction(problems: list[Problem]) -> None:
    from substrate.index.qdrant_edge import recover_compaction

    for shard in {p.subject[0] for p in problems if p.repair == CLEAR_COMPACTION}:
        recover_compaction(Path(shard))


def residue_problems(settings: Settings, index: PageIndex) -> list[Problem]:
    """`index`: the pages as the checkup read them (it writes nothing)."""
    from substrate.forgetting.residue import find_residue

    log = open_session_log(settings.workspace, read_only=True)
    try:
        found = find_residue(settings, log, index)
    finally:
        log.close()
    return [
        Problem(
            KIND,
            r.message,
            "finish the forget (`memory doctor --fix`)",
            FINISH_FORGET,
            (r.kind, r.ident, r.session or ""),
        )
        for r in found
    ]


def finish_forgetting(settings: Settings, problems: list[Problem]) -> int:
    """Run the forget again over what `problems` name; how many items."""
    if not problems:
        return 0
    from substrate.forgetting.residue import Residue, find_residue, finish

    log = open_session_log(settings.workspace)
    try:
        named = {p.subject for p in problems}
        found: list[Residue] = [
            r for r in find_residue(settings, log) if (r.kind, r.ident, r.session or "") in named
        ]
        return finish(settings, log, found)
    finally:
        log.close()
