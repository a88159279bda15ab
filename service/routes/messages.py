"""`/v1/messages/*`: one logged message, named by its id alone (its session
is found from the log)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from service.routes.common import ERRORS, runtime, surface
from service.runtime import Runtime
from substrate import InvalidInputError

router = APIRouter(prefix="/v1", tags=["conversations"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SurfaceDep = Annotated[str, Depends(surface)]


@router.post("/messages/{message_id}/forget")
def forget_message_post(message_id: str, rt: RuntimeDep, via: SurfaceDep) -> dict[str, Any]:
    """Forget one logged message by its id, and what was learned only from it."""
    return rt.memory.forget_conversation(None, parsed_message_id(message_id), via)


def parsed_message_id(value: str) -> int:
    """A message id from a path: digits, 1 ≤ id < 2^63 (`InvalidInputError`, 422,
    naming the rule otherwise)."""
    from substrate.forgetting import check_message_id

    if not value.isdigit() or len(value) > 20:
        raise InvalidInputError(
            f"message id: {value[:40]!r} is not a message id (an integer 1 ≤ id < 2^63)"
        )
    return check_message_id(int(value))
