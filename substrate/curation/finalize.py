"""Running queued session finalizations: each one curates its session up to
the cutoff captured when it ended, resuming after its cursor. Without a model,
the offline extractor captures the session's durable statements instead (the
finalization is done, its code says so); with curation switched off, nothing
runs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from substrate.config.settings import Settings
from substrate.curation.capture import MODEL_DOWN, capture_offline
from substrate.curation.curate import curate
from substrate.errors import MemoryServiceError
from substrate.llm import ChatClient, LlmAnswerError
from substrate.sessions import SessionLog, finalizations as queue

OFFLINE = "offline: no model configured; the offline extractor captured the session"
CURATION_OFF = 'curation-off: curation_mode = "off"'


def run_finalizations(
    settings: Settings,
    log: SessionLog,
    client: ChatClient | None,
    clock: Callable[[], float] = time.time,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Claim and run queued finalizations (one at a time: the lease) until none
    waits, `limit` ran, or one failed (its retry waits for the next tick)."""
    ran: list[dict[str, Any]] = []
    while len(ran) < limit:
        job = queue.claim(log, clock())
        if job is None:
            break
        if settings.tuning.curation_mode == "off":
            queue.finish(log, job.id, "skipped", CURATION_OFF, clock())
            row = {"id": job.id, "session": job.session_id, "status": "skipped"}
            ran.append({**row, "code": CURATION_OFF})
            continue
        if client is None:
            done = capture_offline(
                settings, log, job.session_id, clock(), upto=job.cutoff_message_id
            )
            queue.finish(log, job.id, "done", OFFLINE, clock())
            ran.append({"id": job.id, "status": "done", "code": OFFLINE, **done})
            continue

        def read_up_to(cursor: int, job_id: int = job.id) -> None:
            queue.advance(log, job_id, cursor, clock())

        try:
            outcome = curate(
                settings,
                log,
                client,
                job.session_id,
                cutoff=job.cutoff_message_id,
                cursor=job.cursor,
                trigger=f"session-end:{job.reason}",
                clock=clock(),
                progress=read_up_to,
            )
        except (MemoryServiceError, LlmAnswerError, OSError) as exc:  # retried from the cursor
            status = queue.fail(log, job.id, f"{type(exc).__name__}: {exc}", clock())
            row = {"id": job.id, "session": job.session_id, "status": status}
            if isinstance(exc, MODEL_DOWN):  # the facts are not kept waiting for the model
                done = capture_offline(
                    settings, log, job.session_id, clock(), upto=job.cutoff_message_id
                )
                row["captured_offline"] = done["saved"]
            ran.append({**row, "code": str(exc)[:200]})
            break
        queue.finish(log, job.id, "done", None, clock())
        ran.append({"id": job.id, "session": job.session_id, "status": "done", **outcome.as_json()})
    queue.prune(log)
    return ran
