"""The `Target` the `/mcp` mount's tools call: the running service's own runtime,
through the operations its HTTP routes use (`service.operations`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ingest import IngestOptions, Source
from service.operations import consolidate_now, ingest_and_index
from service.runtime import Runtime
from service.target import Ingested
from substrate import MaintainReport, MemoryServiceError, remember
from substrate.consolidation import explain


class RuntimeTarget:
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    def remember(self, text: str, hints: list[str], at: datetime | None = None) -> str:
        entry = remember(self._rt.settings, text, hints, now=at)
        self._rt.scheduler.nudge()
        return entry.id

    def consolidate(self, dry_run: bool, limit: int | None) -> dict[str, Any]:
        answer = consolidate_now(self._rt, dry_run, limit, wait=True)
        if answer.get("error"):
            raise MemoryServiceError(f"consolidation failed: {answer['error']}")
        outcome: dict[str, Any] = answer.get("outcome") or {}
        return outcome

    def explain(self, entry_id: str) -> dict[str, Any]:
        return explain(self._rt.settings, entry_id)

    def maintain(self, rebuild: bool) -> MaintainReport:
        return self._rt.maintain(rebuild=rebuild)

    def search(self, query: str, k: int, capabilities: bool) -> list[dict[str, Any]]:
        return self._rt.search_hits(query, k, capabilities)

    def card(self, message: str, conversation_id: str | None, voice: bool) -> dict[str, Any]:
        return self._rt.card(message, conversation_id, voice)

    def ingest(self, source: Source, options: IngestOptions) -> Ingested:
        done = ingest_and_index(self._rt, source, options, wait=True)
        indexed = MaintainReport(**done.index) if done.index else None
        return Ingested(done.report, indexed, done.index_error)
