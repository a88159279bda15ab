"""`/v1/jobs/*`: a queued job's state (consolidation runs, finalizations)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.routes.common import ERRORS, runtime
from service.runtime import Runtime

router = APIRouter(tags=["jobs"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]


@router.get("/v1/jobs/{job_id}")
def job_get(job_id: Annotated[int, Path(ge=1, le=2**63 - 1)], rt: RuntimeDep) -> dict[str, Any]:
    job = rt.queue.job(job_id)
    if job is None:
        raise StarletteHTTPException(404, f"no job {job_id}")
    return job
