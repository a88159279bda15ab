"""`/v1/sessions/*`: the conversation log, read."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from service.routes.common import ERRORS, runtime
from service.runtime import Runtime
from substrate import NotFoundError
from substrate.sessions import MAX_LIMIT, check_session_id

router = APIRouter(prefix="/v1", tags=["sessions"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]


Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="How many, newest first.")]


@router.get("/sessions")
def sessions_get(rt: RuntimeDep, limit: Limit = 50) -> dict[str, Any]:
    return {"sessions": [s.as_json() for s in rt.sessions.sessions(limit)]}


@router.get("/sessions/{session_id}")
def session_get(session_id: str, rt: RuntimeDep) -> dict[str, Any]:
    found = rt.sessions.session(check_session_id(session_id))
    if found is None:
        raise NotFoundError(f"no session {session_id!r} in the log")
    messages = [m.as_json() for m in rt.sessions.messages(session_id)]
    return {**found.as_json(), "messages": messages}
