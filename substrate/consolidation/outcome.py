"""What a consolidation run did, entry by entry: the job's result and
`memory consolidate --json`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from substrate.llm import Usage

Status = Literal["filed", "merged", "skipped", "held"]


@dataclass(frozen=True)
class EntryOutcome:
    """`decided_by`: the cascade step (hint, topic, person, entity, search, new,
    inbox) or `llm`; None for an entry a filter skipped or an earlier run had
    already filed. `in_buffer`: the entry stays for the next run (its page
    changed on disk, or it is held for review). The fact's lifecycle on its
    page: its `slot`, what it did (`lifecycle`: add, update, retract, history,
    none), the facts it `replaced` (updated or retracted), the fact it was
    `superseded_by` (a backdated arrival) and why (`lifecycle_reason`); the slot
    `family` weighed, the current facts weighed against it (`candidates`) and
    the decision in words (`decision`: supersedes, retracts, nothing to
    retract, adds, history)."""

    id: str
    status: Status
    page: str | None
    decided_by: str | None
    reason: str
    in_buffer: bool = False
    slot: str | None = None
    lifecycle: str | None = None
    replaced: tuple[str, ...] = ()
    superseded_by: str | None = None
    lifecycle_reason: str = ""
    family: str | None = None
    candidates: tuple[str, ...] = ()
    decision: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "page": self.page,
            "decided_by": self.decided_by,
            "reason": self.reason,
            "in_buffer": self.in_buffer,
            "slot": self.slot,
            "lifecycle": self.lifecycle,
            "replaced": list(self.replaced),
            "superseded_by": self.superseded_by,
            "lifecycle_reason": self.lifecycle_reason,
            "family": self.family,
            "candidates": list(self.candidates),
            "decision": self.decision,
        }


@dataclass
class ConsolidationOutcome:
    dry_run: bool = False
    planner: str = "deterministic"
    entries: list[EntryOutcome] = field(default_factory=list)
    pages_created: list[str] = field(default_factory=list)
    pages_updated: list[str] = field(default_factory=list)
    views_written: list[str] = field(default_factory=list)
    dangling_links: int = 0
    fallbacks: list[str] = field(default_factory=list)
    tokens: Usage = field(default_factory=Usage)
    model_seconds: float = 0.0
    seconds: float = 0.0
    runs: int = 0
    remaining: int = 0
    set_aside: list[str] = field(default_factory=list)  # facts whose own filing failed

    def count(self, status: Status) -> int:
        return sum(1 for e in self.entries if e.status == status and not e.in_buffer)

    @property
    def consumed(self) -> int:
        """Entries this outcome took out of the buffer."""
        return sum(1 for e in self.entries if not e.in_buffer)

    def merge(self, other: ConsolidationOutcome) -> None:
        """Fold a later run of the same call into this outcome."""
        self.planner = other.planner
        seen = {e.id for e in self.entries if e.status == "held"}
        self.entries += [e for e in other.entries if e.status != "held" or e.id not in seen]
        self.pages_created += [s for s in other.pages_created if s not in self.pages_created]
        self.pages_updated += [
            s
            for s in other.pages_updated
            if s not in self.pages_updated and s not in self.pages_created
        ]
        self.views_written += [v for v in other.views_written if v not in self.views_written]
        self.dangling_links = other.dangling_links
        self.fallbacks += other.fallbacks
        self.tokens = self.tokens + other.tokens
        self.model_seconds += other.model_seconds
        self.seconds += other.seconds
        self.runs += other.runs
        self.remaining = other.remaining
        self.set_aside += [i for i in other.set_aside if i not in self.set_aside]

    def as_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "planner": self.planner,
            "entries_seen": len(self.entries),
            "filed": self.count("filed"),
            "merged": self.count("merged"),
            "skipped": self.count("skipped"),
            "held": sum(1 for e in self.entries if e.status == "held"),
            "kept": sum(1 for e in self.entries if e.in_buffer),
            "pages_created": len(self.pages_created),
            "pages_updated": len(self.pages_updated),
            "created": self.pages_created,
            "updated": self.pages_updated,
            "views_written": self.views_written,
            "dangling_links": self.dangling_links,
            "fallbacks": self.fallbacks,
            "tokens": self.tokens.as_json(),
            "model_seconds": round(self.model_seconds, 3),
            "seconds": round(self.seconds, 3),
            "runs": self.runs,
            "remaining": self.remaining,
            "set_aside": self.set_aside,
            "entries": [e.as_json() for e in self.entries],
        }
