"""One curation run over a session's messages up to a cutoff.

Bounded slices → extraction (the model proposes, with evidence) → the
reviewer (code decides) → the curation store; auto-applied facts are written
under the profile lease. A slice whose extraction fails stops the run with
the cursor at the last slice that finished, so a retry revisits exactly the
messages not yet read."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from substrate.config.settings import Settings
from substrate.curation.extract import extract, slices
from substrate.curation.operations import Edits, lease
from substrate.curation.review import AUTO, review, target_file
from substrate.curation.sentences import sentence_problem
from substrate.curation.store import Candidate, CurationStore, Operation, Run, candidate_id
from substrate.errors import InvalidInputError, MemoryServiceError
from substrate.llm import ChatClient
from substrate.safety.echoes import strip_echoes
from substrate.sessions import SessionLog


@dataclass
class CurationOutcome:
    run: str
    cursor: int  # the last message id read
    applied: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "cursor": self.cursor,
            "applied": self.applied,
            "pending": self.pending,
            "ignored": self.ignored,
            "dropped": self.dropped,
        }


def curate(
    settings: Settings,
    log: SessionLog,
    client: ChatClient,
    session_id: str,
    *,
    cutoff: int,
    cursor: int = 0,
    trigger: str = "manual",
    clock: float | None = None,
    progress: Callable[[int], object] | None = None,
) -> CurationOutcome:
    """Curate messages `cursor` < id ≤ `cutoff` of `session_id`. Raises what the
    model call raised (the outcome so far is recorded, its cursor kept)."""
    now = time.time() if clock is None else clock
    run_id = f"r-{int(now * 1000)}-{session_id}"[:80]
    messages = [m for m in log.messages(session_id) if cursor < m.id <= cutoff]
    outcome = CurationOutcome(run_id, cursor)
    reasons: list[str] = []
    try:
        for slice_ in slices(messages):
            extraction = extract(client, slice_)
            outcome.dropped += extraction.dropped
            said = {m.id: strip_echoes(m.text) for m in slice_}
            _decide(settings, run_id, extraction.facts, outcome, now, said, session_id)
            outcome.cursor = slice_[-1].id
            if progress is not None:
                progress(outcome.cursor)  # a retry starts after this slice
    except Exception as exc:  # the model call's failure: recorded, then raised
        reasons.append(f"stopped at message {outcome.cursor}: {exc}")
        _record(
            settings,
            Run(
                run_id,
                trigger,
                session_id,
                [m.id for m in messages if m.id <= outcome.cursor],
                "failed",
                reasons,
                now,
            ),
        )
        raise
    _record(
        settings,
        Run(run_id, trigger, session_id, [m.id for m in messages], "done", outcome.dropped, now),
    )
    return outcome


def _decide(
    settings: Settings,
    run_id: str,
    facts: list[Any],
    outcome: CurationOutcome,
    now: float,
    said: dict[int, str],
    session_id: str,
) -> None:
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        edits = Edits(settings)
        for i, fact in enumerate(facts):
            name = target_file(fact)
            doubt = sentence_problem(fact.text, fact.evidence, said)
            decision = review(settings, fact, edits.text(name), doubt, session_id)
            cid = candidate_id(run_id, len(store.candidates) + i, fact.text)
            op = Operation(name, f"- {fact.text}") if decision.applyable else None
            status = {"auto-apply": "applied", "pending-review": "pending"}.get(
                decision.disposition, "ignored"
            )
            reason = decision.reason
            if decision.disposition == AUTO:
                try:
                    op = edits.add_line(name, fact.text, "extracted")
                    store.written[op.file] = str(op.after_sha256)
                except (InvalidInputError, MemoryServiceError, OSError) as exc:
                    status, reason = "pending", f"apply failed: {exc}"
            store.candidates.append(
                Candidate(
                    cid, run_id, fact.as_json(), decision.disposition, reason, status, op, now
                )
            )
            {"applied": outcome.applied, "pending": outcome.pending}.get(
                status, outcome.ignored
            ).append(cid)
        edits.commit(store)


def _record(settings: Settings, run: Run) -> None:
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        store.add_run(run)
        store.flush()
