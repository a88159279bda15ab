"""`/v1/consolidation/*` and `/v1/jobs/*`: running jobs now and reading their state."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.routes.common import ERRORS, runtime
from service.runtime import Runtime
from service.worker import CONSOLIDATE

router = APIRouter(tags=["jobs"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]


@router.post("/v1/consolidation/run-now")
def consolidation_run_now(rt: RuntimeDep) -> dict[str, Any]:
    queued = rt.queue.enqueue(CONSOLIDATE, {"reason": "run-now"})
    return {"job_id": queued.id, "deduped": queued.deduped}


@router.get("/v1/jobs/{job_id}")
def job_get(job_id: Annotated[int, Path(ge=1, le=2**63 - 1)], rt: RuntimeDep) -> dict[str, Any]:
    job = rt.queue.job(job_id)
    if job is None:
        raise StarletteHTTPException(404, f"no job {job_id}")
    return job
