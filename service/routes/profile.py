"""`/v1/profile`: the profile files (each with its lines) and the active
promotions; `/v1/profile/lines`: a person's own line added, scanned. A line
is forgotten through `/v1/memory/forget` with its text, like every fact."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from service.routes.common import ERRORS, Strict, is_person, person, runtime, settings
from service.runtime import Runtime
from substrate import Settings
from substrate.curation import LineFile
from substrate.profile import profile_json, read_profile
from substrate.promotion import PromotionStore

router = APIRouter(prefix="/v1", tags=["profile"], responses=ERRORS)
SettingsDep = Annotated[Settings, Depends(settings)]
RuntimeDep = Annotated[Runtime, Depends(runtime)]


class LineIn(Strict):
    text: str = Field(min_length=1, max_length=4000, description="The line, without `- `.")
    file: LineFile = Field(
        "USER.md", description="USER.md (preferences) or MEMORY.md (project facts)."
    )


@router.get("/profile")
def profile_get(s: SettingsDep) -> dict[str, Any]:
    """The profile files (text, size, budget) and the active promotions."""
    files = [profile_json(f) for f in read_profile(s).values()]
    active = [r.as_json() for r in PromotionStore.load(s.workspace).active()]
    return {"files": files, "active_promotions": active}


@router.post("/profile/lines")
def profile_line_post(
    body: LineIn, rt: RuntimeDep, mine: Annotated[bool, Depends(is_person)]
) -> dict[str, Any]:
    """Add `- TEXT` to a profile file: budget-checked and scanned under the user
    policy (refused, never held: a profile line is trusted on every card). A
    line that asks the assistant to act is parked: `{pending, reason}`; so is
    every line sent without the person's credential (the assistant's token
    proposes, the person confirms)."""
    return rt.memory.add_profile_line(body.text, body.file, via="http", proposed=not mine)


@router.get("/profile/pending")
def profile_pending_get(rt: RuntimeDep) -> dict[str, Any]:
    """Profile lines parked until the person confirms them (each asks the
    assistant to act): id, file, text, via, reason, at."""
    return {"pending": rt.memory.pending_lines()}


@router.post("/profile/pending/{line_id}/confirm", dependencies=[Depends(person)])
def profile_pending_confirm(line_id: str, rt: RuntimeDep) -> dict[str, Any]:
    """The person confirms a parked line: it is written to its file (the web
    tab's Confirm, in a session the service's printed link opened; `memory
    profile confirm ID` at a terminal, with the person key). The workspace
    token, the assistant's credential, cannot: 403 `person_required`."""
    return rt.memory.confirm_line(line_id)
