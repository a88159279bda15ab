"""`/v1/sessions/*`: the conversation log, read; `/v1/sessions/import`: a chat
history imported by the service that owns the workspace (`memory import`
while it runs), its episodes indexed before the answer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime
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


IMPORT_PATH = "/v1/sessions/import"


class ImportIn(Strict):
    format: Literal["chatgpt", "claude", "jsonl"]
    content: str = Field(description="The export file's text.")
    name: str = Field("upload", min_length=1, max_length=1000, description="The file's name.")
    dry_run: bool = False
    include_forgotten: bool = False


@router.post("/sessions/import")
def import_post(body: ImportIn, rt: RuntimeDep) -> dict[str, Any]:
    """`memory import` on the service: the log, capture, then the episodes
    indexed, so what was imported is searchable when this returns."""
    from service.importing import import_history

    data = body.content.encode("utf-8")
    return import_history(
        rt.memory, body.format, Path(body.name), body.dry_run, body.include_forgotten, data
    )
