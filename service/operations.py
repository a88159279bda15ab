"""What the HTTP routes and the MCP server's `/mcp` mount do over a running
service: one place for each operation that is more than one library call
(ingest then re-index, consolidation on the worker), so both surfaces answer
alike. The CLI reaches the same operations through `cli.target.Remote`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ingest import IngestOptions, IngestReport, Source
from ingest import run as run_ingest
from service.runtime import REEMBED, Runtime
from service.worker import CONSOLIDATE

INGEST_WAIT_S = 600.0
CONSOLIDATE_WAIT_S = 600.0


@dataclass(frozen=True)
class IngestDone:
    report: IngestReport
    index: dict[str, Any] | None = None  # the re-index job's report, once it ran
    index_error: str | None = None
    job_id: int | None = None

    def as_json(self) -> dict[str, Any]:
        extra = {"index": self.index, "index_error": self.index_error, "job_id": self.job_id}
        return {**self.report.as_json(), **extra}


def ingest_and_index(rt: Runtime, source: Source, options: IngestOptions, wait: bool) -> IngestDone:
    """Write the pages on this thread, then re-index on the worker (waiting for it
    unless `wait` is false)."""
    report = run_ingest(rt.settings, source, options)
    if options.dry_run:
        return IngestDone(report)
    # Queued even when nothing was written: an earlier run may have written pages
    # whose indexing failed, and a rerun finds them unchanged (a no-op otherwise).
    queued = rt.queue.enqueue(REEMBED, {"reason": "ingest"})
    if not wait:
        return IngestDone(report, job_id=queued.id)
    job = rt.wait_for(queued, INGEST_WAIT_S)
    run = rt.last_result(queued.id) if job else None
    index = run["detail"] if run and run["outcome"] == "ok" else None
    error = job["last_error"] if job is not None and job["state"] == "failed" else None
    return IngestDone(report, index, error, queued.id)


def consolidate_now(rt: Runtime, dry_run: bool, limit: int | None, wait: bool) -> dict[str, Any]:
    """A dry run is planned on this thread; a real one runs on the worker, at most
    one at a time: a request while one is queued or running joins it (`deduped`)."""
    if dry_run:
        return {"job_id": None, "deduped": False, "state": "done", "outcome": rt.plan(limit)}
    payload: dict[str, Any] = {"reason": "run-now"}
    if limit is not None:
        payload["limit"] = limit
    queued = rt.queue.enqueue(CONSOLIDATE, payload)
    out: dict[str, Any] = {"job_id": queued.id, "deduped": queued.deduped, "outcome": None}
    job = rt.wait_for(queued, CONSOLIDATE_WAIT_S) if wait else None
    out["state"] = job["state"] if job else "queued"
    if job is not None:
        run = rt.last_result(queued.id)
        out["outcome"] = run["detail"] if run else None
        out["error"] = job["last_error"] if job["state"] == "failed" else None
    return out
