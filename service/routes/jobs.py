"""`/v1/consolidation/*` and `/v1/jobs/*`: running consolidation now, explaining
where an entry went, and reading a job's state."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.routes.common import ERRORS, Strict, runtime, settings
from service.runtime import Runtime
from service.worker import CONSOLIDATE
from substrate import Settings
from substrate.consolidation import explain

CONSOLIDATE_WAIT_S = 600.0
router = APIRouter(tags=["jobs"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]


class RunNowIn(Strict):
    dry_run: bool = Field(False, description="Plan and report; write nothing.")
    limit: int | None = Field(None, ge=1, description="Take at most this many entries.")
    wait: bool = Field(True, description="Answer with the outcome once the run is done.")


@router.post("/v1/consolidation/run-now")
def consolidation_run_now(rt: RuntimeDep, s: SettingsDep, body: RunNowIn | None = None) -> Any:
    """File the buffer into pages now (the job the schedule runs). A dry run is
    planned on the request; a real one runs on the worker, at most one at a time:
    a request while one is queued or running joins it (`deduped`)."""
    body = body or RunNowIn.model_validate({})
    if body.dry_run:
        return {"job_id": None, "deduped": False, "state": "done", "outcome": rt.plan(body.limit)}
    payload: dict[str, Any] = {"reason": "run-now"}
    if body.limit is not None:
        payload["limit"] = body.limit
    queued = rt.queue.enqueue(CONSOLIDATE, payload)
    out: dict[str, Any] = {"job_id": queued.id, "deduped": queued.deduped, "outcome": None}
    job = rt.wait_for(queued, CONSOLIDATE_WAIT_S) if body.wait else None
    out["state"] = job["state"] if job else "queued"
    if job is not None:
        run = rt.last_result(queued.id)
        out["outcome"] = run["detail"] if run else None
        out["error"] = job["last_error"] if job["state"] == "failed" else None
    return out


@router.get("/v1/consolidation/explain/{entry_id}")
def consolidation_explain(entry_id: str, s: SettingsDep) -> dict[str, Any]:
    """Where a buffer entry went and why (each recorded decision)."""
    return explain(s, entry_id)


@router.get("/v1/jobs/{job_id}")
def job_get(job_id: Annotated[int, Path(ge=1, le=2**63 - 1)], rt: RuntimeDep) -> dict[str, Any]:
    job = rt.queue.job(job_id)
    if job is None:
        raise StarletteHTTPException(404, f"no job {job_id}")
    return job
