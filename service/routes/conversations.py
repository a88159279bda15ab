"""`/v1/conversations/*`: the host's transcript, appended and ended."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime, settings, surface
from service.runtime import Runtime
from substrate import Settings
from substrate.sessions import NewMessage

router = APIRouter(prefix="/v1", tags=["conversations"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]
SurfaceDep = Annotated[str, Depends(surface)]


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


class ForgetConversationIn(Strict):
    message_id: int | None = Field(
        None, description="One message of the session; the whole session when absent."
    )


@router.post("/conversations/{conversation_id}/forget")
def forget_post(
    conversation_id: str, body: ForgetConversationIn, rt: RuntimeDep, via: SurfaceDep
) -> dict[str, Any]:
    """Forget a whole session, or one of its messages, and what was learned only
    from it: out of the transcript, the log's search, the episodes and every card;
    a tombstone keeps which messages, when and through what (no words)."""
    return rt.memory.forget_conversation(conversation_id, body.message_id, via)
