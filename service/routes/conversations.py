"""`/v1/conversations/*`, `/v1/sessions/*` and `/v1/promotions/*`: the
conversation log and what promotion made of it."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime, settings
from service.runtime import Runtime
from substrate import NotFoundError, Settings
from substrate.profile import read_profile
from substrate.promotion import PromotionStore, explain, forget_promotion
from substrate.sessions import MAX_LIMIT, NewMessage, check_session_id

router = APIRouter(prefix="/v1", tags=["conversations"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]


class MessageIn(Strict):
    role: Literal["user", "assistant", "tool", "system"]
    text: str = Field(min_length=1)
    direct: bool | None = Field(
        None, description="The user's own input (defaults to true for user turns)."
    )


class MessagesIn(Strict):
    messages: list[MessageIn] = Field(min_length=1)
    parent_id: str | None = Field(None, description="The root session of a child session.")


class EndIn(Strict):
    reason: Literal["new", "reset", "exit", "idle", "one-shot"]


class ExplainIn(Strict):
    text: str = Field(min_length=1)
    session_id: str | None = None


@router.post("/conversations/{conversation_id}/messages")
def messages_post(conversation_id: str, body: MessagesIn, rt: RuntimeDep) -> dict[str, Any]:
    """Append turns (the host's transcript); each direct user turn is promoted after
    it is stored."""
    messages = [
        NewMessage(m.role, m.text, m.role == "user" if m.direct is None else m.direct)
        for m in body.messages
    ]
    ids, outcomes = rt.memory.log_turns(conversation_id, messages, body.parent_id)
    return {
        "session_id": conversation_id,
        "ids": ids,
        "promotions": [o.as_json() for o in outcomes],
    }


@router.post("/conversations/{conversation_id}/end")
def end_post(conversation_id: str, body: EndIn, rt: RuntimeDep) -> dict[str, Any]:
    """End the session; its finalization (curation up to this cutoff) is queued."""
    return rt.memory.end_session(conversation_id, body.reason)


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


@router.get("/promotions")
def promotions_get(s: SettingsDep) -> dict[str, Any]:
    return promotions_json(s)


@router.post("/promotions/explain")
def promotions_explain(body: ExplainIn, rt: RuntimeDep, s: SettingsDep) -> dict[str, Any]:
    return explain(s, rt.sessions, body.text, body.session_id)


@router.post("/promotions/{promotion_id}/forget")
def promotions_forget(promotion_id: str, s: SettingsDep) -> dict[str, Any]:
    return forget_promotion(s, promotion_id, time.time())


@router.get("/profile")
def profile_get(s: SettingsDep) -> dict[str, Any]:
    """The profile files (text, size, budget) and the active promotions."""
    files = [
        {
            "name": f.name,
            "text": f.text,
            "chars": len(f.text),
            "budget": f.budget,
            "protected": f.protected,
            "exists": f.snapshot.exists,
        }
        for f in read_profile(s).values()
    ]
    active = [r.as_json() for r in PromotionStore.load(s.workspace).active()]
    return {"files": files, "active_promotions": active}


def promotions_json(settings: Settings) -> dict[str, Any]:
    """Every record, grouped by nothing: the interface is the flat list."""
    store = PromotionStore.load(settings.workspace)
    records = sorted(store.records.values(), key=lambda r: (r.status, r.content))
    return {"records": [r.as_json() for r in records]}
