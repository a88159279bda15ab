"""`/v1/consolidation/*`: running consolidation now and explaining where an entry
went."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime, settings
from service.runtime import Runtime
from substrate import Settings

router = APIRouter(tags=["consolidation"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]


class RunNowIn(Strict):
    dry_run: bool = Field(False, description="Plan and report; write nothing.")
    limit: int | None = Field(None, ge=1, description="Take at most this many entries.")
    wait: bool = Field(True, description="Answer with the outcome once the run is done.")


@router.post("/v1/consolidation/run-now")
def consolidation_run_now(rt: RuntimeDep, body: RunNowIn | None = None) -> Any:
    """File the buffer into pages now (the job the schedule runs). A dry run is
    planned on the request; a real one runs on the worker, at most one at a time:
    a request while one is queued or running joins it (`deduped`)."""
    body = body or RunNowIn.model_validate({})
    return rt.run_now(body.dry_run, body.limit, body.wait)


@router.get("/v1/consolidation/explain/{entry_id}")
def consolidation_explain(entry_id: str, rt: RuntimeDep) -> dict[str, Any]:
    """Where a buffer entry went and why (each recorded decision)."""
    return rt.memory.explain(entry_id)
