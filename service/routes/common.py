"""What every router shares: the running service's parts, and the one error body."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from service.runtime import Runtime
from substrate import MemoryServiceError, Settings


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(BaseModel):
    status: int
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 404, 409, 422, 503)
}


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"status": status, "code": code, "message": message}}, status_code=status
    )


def runtime(request: Request) -> Runtime:
    """The service's runtime (a FastAPI dependency); set while the lifespan runs."""
    found: Runtime | None = getattr(request.app.state, "runtime", None)
    if found is None:
        raise MemoryServiceError("the service is starting or stopping")
    return found


def settings(request: Request) -> Settings:
    found: Settings = request.app.state.settings
    return found
