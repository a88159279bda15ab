"""Where a command's work happens: in this process over the workspace, or through
the running service that owns the workspace's index.

Commands ask `target_for(...)` once and call the same methods either way, so
each command has one code path and prints the same thing whichever ran it.
While `memory serve` runs, the embedded index belongs to that process, so
index work must go through it; `--url` points at any other service.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from ingest import IngestOptions, IngestReport, PageResult, Source, StagedPage
from ingest import run as run_ingest
from injector import Injector, file_into_pkb
from service.cli.base import ProgressBar
from service.client import ServiceClient
from service.discovery import running_service
from service.settings_loader import build_settings, service_token
from service.target import Ingested, Target
from substrate import (
    Capability,
    InvalidInputError,
    MaintainReport,
    MemoryServiceError,
    SearchIndex,
    Settings,
    memory_tier,
    open_search_index,
    open_workspace,
    remember,
    uses_concept_page_memory,
)
from substrate.consolidation import consolidate, consolidate_all, explain
from substrate.llm import open_chat_client
from substrate.pages import decode_page
from substrate.sessions import open_session_log

Capabilities = Callable[[], list[Capability]]


def target_for(workspace: Path, url: str | None, capabilities: Capabilities) -> Target:
    """The service when one owns this workspace (or `url` names one), else local."""
    if not url:
        found = running_service(open_workspace(workspace))
        url = found.url if found else None
    ctx = click.get_current_context()
    if url is None:
        local = Local(build_settings(workspace), capabilities)
        ctx.call_on_close(local.close)
        return local
    client = ServiceClient(url, service_token())
    ctx.call_on_close(client.close)  # its pooled connections
    return Remote(client, workspace)


class Local:
    """The library over the workspace; the search index opens on first use and is
    brought up to date with the pages first (it embeds only what changed)."""

    def __init__(self, settings: Settings, capabilities: Capabilities) -> None:
        """The index is this tier's (`Settings.indexed_corpus`): on v1 the knowledge
        base's, and no capabilities are seeded into it (substrate machinery)."""
        self.settings = settings
        self._corpus = settings.indexed_corpus()
        self._v1 = memory_tier(settings.config) == "v1"
        substrate = uses_concept_page_memory(settings.config)
        self._capabilities = capabilities if substrate else list
        self._index: SearchIndex | None = None
        self._injector: Injector | None = None

    def _maintained(self) -> SearchIndex:
        if self._index is None:
            self._index = open_search_index(self._corpus)
            self._index.maintain(self._capabilities())
        return self._index

    def remember(self, text: str, hints: list[str], at: datetime | None = None) -> str:
        return remember(self.settings, text, hints, now=at).id

    def consolidate(self, dry_run: bool, limit: int | None) -> dict[str, Any]:
        """File the buffer (bounded runs, each followed by a re-index, so what was
        filed is searchable when the command returns); a dry run plans one batch.
        On v1 the buffer goes onto the knowledge base's notes instead."""
        if self._v1:
            filed = file_into_pkb(self.settings, dry_run=dry_run)
            if filed.filed and not dry_run:
                self.maintain(rebuild=False)
            return filed.as_json()
        index = self._maintained()
        client = open_chat_client(self.settings)
        try:
            if dry_run:
                run = consolidate(
                    self.settings, dry_run=True, limit=limit, search=index, client=client
                )
            else:
                run = consolidate_all(
                    self.settings,
                    limit=limit,
                    search=index,
                    client=client,
                    after_run=lambda _: index.maintain(self._capabilities()),
                )
        finally:
            if client is not None:
                client.close()
        return run.as_json()

    def explain(self, entry_id: str) -> dict[str, Any]:
        return explain(self.settings, entry_id)

    def maintain(self, rebuild: bool) -> MaintainReport:
        index = self._index or open_search_index(self._corpus)
        self._index = index
        with ProgressBar("embedding chunks") as bar:
            return index.maintain(self._capabilities(), rebuild=rebuild, progress=bar.update)

    def search(self, query: str, k: int, capabilities: bool) -> list[dict[str, Any]]:
        hits = self._maintained().search(query, k, include_capabilities=capabilities)
        return [h.as_json() for h in hits]

    def card(self, message: str, conversation_id: str | None, voice: bool) -> dict[str, Any]:
        if self._injector is None:
            self._injector = Injector(
                self.settings,
                None if voice else self._maintained(),
                sessions=open_session_log(self.settings.workspace, read_only=True),
            )
        return self._injector.assemble(message, conversation_id, voice_front_door=voice).as_json()

    def ingest(self, source: Source, options: IngestOptions) -> Ingested:
        """Pages first, then indexing, always (not only when pages were written): a
        run whose indexing failed wrote its pages, and its rerun finds them
        `unchanged` but still unindexed. An indexing failure is reported beside
        the report, never instead of it."""
        with ProgressBar("ingesting pages") as bar:
            report = run_ingest(self.settings, source, options, progress=bar.update)
        if options.dry_run:
            return Ingested(report)
        try:
            return Ingested(report, self.maintain(rebuild=False))
        except MemoryServiceError as exc:
            return Ingested(report, index_error=exc.message)
        except OSError as exc:
            return Ingested(report, index_error=f"{exc.strerror or exc}")

    def close(self) -> None:
        if self._index is not None:
            self._index.store.close()


class Remote:
    """The running service, over HTTP; its errors come back as the same
    `MemoryServiceError`s the library raises."""

    def __init__(self, client: ServiceClient, workspace: Path) -> None:
        self._client = client
        self._workspace = workspace

    def remember(self, text: str, hints: list[str], at: datetime | None = None) -> str:
        body: dict[str, Any] = {"text": text, "hints": hints}
        if at is not None:
            body["at"] = at.isoformat()
        return str(self._client.post("/v1/memory/remember", body)["id"])

    def consolidate(self, dry_run: bool, limit: int | None) -> dict[str, Any]:
        body = {"dry_run": dry_run, "limit": limit, "wait": True}
        answer: dict[str, Any] = self._client.post("/v1/consolidation/run-now", body)
        if answer.get("error"):
            raise MemoryServiceError(f"consolidation failed: {answer['error']}")
        outcome: dict[str, Any] = answer.get("outcome") or {}
        return outcome

    def explain(self, entry_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._client.get(f"/v1/consolidation/explain/{entry_id}")
        return found

    def maintain(self, rebuild: bool) -> MaintainReport:
        return MaintainReport(**self._client.post("/v1/memory/maintain", {"rebuild": rebuild}))

    def search(self, query: str, k: int, capabilities: bool) -> list[dict[str, Any]]:
        body = {"query": query, "k": k, "capabilities": capabilities}
        hits: list[dict[str, Any]] = self._client.post("/v1/memory/search", body)["hits"]
        return hits

    def card(self, message: str, conversation_id: str | None, voice: bool) -> dict[str, Any]:
        body = {"message": message, "conversation_id": conversation_id, "voice_front_door": voice}
        result: dict[str, Any] = self._client.post("/v1/memory/card", body)
        return result

    def ingest(self, source: Source, options: IngestOptions) -> Ingested:
        """Pages are read here (so a staging folder on this machine works against any
        service) and sent inline, one batch per request."""
        cap = build_settings(self._workspace).tuning.ingest_max_page_bytes
        results: list[PageResult] = []
        indexed: MaintainReport | None = None
        index_error: str | None = None
        ready: list[tuple[StagedPage, str]] = []
        for staged in source.pages():
            try:
                if staged.read is None:
                    raise InvalidInputError(staged.problem or "unreadable entry")
                ready.append((staged, decode_page(staged.read(cap))))
            except (MemoryServiceError, OSError) as exc:
                message = exc.message if isinstance(exc, MemoryServiceError) else str(exc)
                results.append(PageResult(staged.slug, staged.where, "failed", error=message))
        with ProgressBar("ingesting pages") as bar:
            for start in range(0, len(ready), options.batch_size):
                batch = ready[start : start + options.batch_size]
                doc = self._client.post("/v1/memory/ingest", _ingest_body(batch, options))
                for (staged, _), row in zip(batch, doc["pages"], strict=True):
                    results.append(PageResult(**{**row, "where": staged.where}))
                if doc.get("index"):
                    indexed = MaintainReport(**doc["index"])
                index_error = doc.get("index_error") or index_error
                bar.update(start + len(batch), len(ready))
        label = f"{source.name} via {self._client.url}"
        return Ingested(IngestReport(label, options.dry_run, results), indexed, index_error)


def _ingest_body(batch: list[tuple[StagedPage, str]], options: IngestOptions) -> dict[str, Any]:
    return {
        "pages": [{"slug": staged.slug, "content": text} for staged, text in batch],
        "dry_run": options.dry_run,
        "overwrite": options.overwrite,
        "source": options.source,
    }
