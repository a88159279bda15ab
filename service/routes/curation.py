"""`/v1/curation/*`: the operator controls over HTTP, the same library calls
as the CLI's `memory review`, `recent`, `apply`, `reject` and `undo`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime, settings, surface
from service.runtime import Runtime
from substrate import Settings
from substrate.config import set_substrate_key
from substrate.curation import (
    apply_candidate,
    curate,
    edit_candidate,
    recent_json,
    reject_candidate,
    review_json,
    undo_candidate,
)
from substrate.errors import InvalidInputError
from substrate.sessions import MAX_LIMIT, finalizations as queue

router = APIRouter(prefix="/v1/curation", tags=["curation"], responses=ERRORS)
SettingsDep = Annotated[Settings, Depends(settings)]
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SurfaceDep = Annotated[str, Depends(surface)]


@router.get("/review")
def review_get(s: SettingsDep) -> dict[str, Any]:
    return review_json(s)


@router.get("/recent")
def recent_get(s: SettingsDep) -> dict[str, Any]:
    return recent_json(s)


@router.post("/{candidate_id}/apply")
def apply_post(candidate_id: str, s: SettingsDep) -> dict[str, Any]:
    return apply_candidate(s, candidate_id)


@router.post("/{candidate_id}/reject")
def reject_post(candidate_id: str, s: SettingsDep) -> dict[str, Any]:
    return reject_candidate(s, candidate_id)


@router.post("/{candidate_id}/undo")
def undo_post(candidate_id: str, s: SettingsDep) -> dict[str, Any]:
    return undo_candidate(s, candidate_id)


class TextIn(Strict):
    text: str = Field(min_length=1)


class ModeIn(Strict):
    mode: Literal["off", "review", "auto"]


class PopulateIn(Strict):
    session_id: str = Field(min_length=1)


class ForgetIn(Strict):
    what: str = Field(min_length=1, description="A promotion id, a candidate id or a line's text.")


@router.post("/{candidate_id}/edit")
def edit_post(candidate_id: str, body: TextIn, s: SettingsDep) -> dict[str, Any]:
    return edit_candidate(s, candidate_id, body.text)


@router.get("/status")
def status_get(rt: RuntimeDep) -> dict[str, Any]:
    return rt.memory.status()


@router.get("/mode")
def mode_get(s: SettingsDep) -> dict[str, Any]:
    return {"mode": s.tuning.curation_mode}


@router.post("/mode")
def mode_post(body: ModeIn, rt: RuntimeDep) -> dict[str, Any]:
    """Write `curation_mode` to config.toml; the running service reads it on restart."""
    set_substrate_key(rt.settings.workspace.config_path, "curation_mode", body.mode)
    return {"mode": body.mode, "applies": "on the service's next start"}


@router.post("/populate")
def populate_post(body: PopulateIn, rt: RuntimeDep) -> dict[str, Any]:
    if rt.llm is None:
        raise InvalidInputError(
            "curation is off: no model is configured ([memory.substrate.llm] base_url and model)"
        )
    messages = rt.sessions.messages(body.session_id)
    if not messages:
        raise InvalidInputError(f"session {body.session_id!r} has no logged messages")
    return curate(
        rt.settings, rt.sessions, rt.llm, body.session_id, cutoff=messages[-1].id
    ).as_json()


@router.post("/forget")
def forget_post(body: ForgetIn, rt: RuntimeDep, via: SurfaceDep) -> dict[str, Any]:
    """`memory forget`'s answer: `{"forgot", "facts", "files", "derived"}`, ids only."""
    return rt.memory.forget(body.what, via=via)


@router.get("/finalizations")
def finalizations_get(
    rt: RuntimeDep, limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50
) -> dict[str, Any]:
    return {"finalizations": [f.as_json() for f in queue.listed(rt.sessions, limit)]}
