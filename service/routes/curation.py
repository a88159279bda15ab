"""`/v1/curation/*`: the operator controls over HTTP, the same library calls
as the CLI's `memory review`, `recent`, `apply`, `reject` and `undo`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from service.routes.common import ERRORS, settings
from substrate import Settings
from substrate.curation import (
    apply_candidate,
    recent_json,
    reject_candidate,
    review_json,
    undo_candidate,
)

router = APIRouter(prefix="/v1/curation", tags=["curation"], responses=ERRORS)
SettingsDep = Annotated[Settings, Depends(settings)]


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
