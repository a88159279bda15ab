"""What every surface's commands run against (`Target`): the library over a
workspace (`cli.target.Local`), a running service over HTTP (`cli.target.Remote`),
or the service's own runtime (`mcp.runtime_target`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ingest import IngestOptions, IngestReport, Source
from substrate import MaintainReport


class Target(Protocol):
    def remember(self, text: str, hints: list[str], at: datetime | None = None) -> str: ...

    def consolidate(self, dry_run: bool, limit: int | None) -> dict[str, Any]: ...

    def explain(self, entry_id: str) -> dict[str, Any]: ...

    def maintain(self, rebuild: bool) -> MaintainReport: ...

    def search(self, query: str, k: int, capabilities: bool) -> list[dict[str, Any]]: ...

    def card(self, message: str, conversation_id: str | None, voice: bool) -> dict[str, Any]: ...

    def ingest(self, source: Source, options: IngestOptions) -> Ingested: ...


@dataclass(frozen=True)
class Ingested:
    """An ingest's report, and what indexing made of it: the maintain report, or
    why indexing failed (the pages stay written; a rerun indexes them)."""

    report: IngestReport
    indexed: MaintainReport | None = None
    index_error: str | None = None
