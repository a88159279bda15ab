"""What every router shares: the running service's parts, and the one error body."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from service.runtime import Runtime
from substrate import ServiceStartingError, Settings


class Strict(BaseModel):
    """A request body: unknown fields and coerced types are both 422 (`"yes"` is
    not a bool, `true` is not a count)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ErrorBody(BaseModel):
    status: int
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 404, 409, 422, 503)
}


def error_response(
    status: int, code: str, message: str, fields: dict[str, str] | None = None
) -> JSONResponse:
    """The one error body; `fields` are an error's own (`MemoryServiceError.fields`)."""
    error = {"status": status, "code": code, "message": message, **(fields or {})}
    return JSONResponse({"error": error}, status_code=status)


# The dependencies are coroutines: FastAPI runs a plain function dependency on
# the thread pool, a hop there and back for every request, which under load
# cost a remember more than its own work.
async def runtime(request: Request) -> Runtime:
    """The service's runtime (a FastAPI dependency); set while the lifespan runs."""
    found: Runtime | None = getattr(request.app.state, "runtime", None)
    if found is None:
        raise ServiceStartingError("the service is starting or stopping; retry in a moment")
    return found


CALLERS = ("cli", "web")  # surfaces that say which they are; any other caller is "http"


async def surface(request: Request) -> str:
    """Which surface a request came through, as a tombstone records it: the CLI
    and the web tab say so in a header; anything else is `http`."""
    said = request.headers.get("x-memory-surface", "")
    return said if said in CALLERS else "http"


async def person(request: Request) -> None:
    """Refuse (403) a request that does not come from the person: their key from
    a terminal, or their web session with its CSRF token (`service.person`)."""
    gate = request.app.state.person
    headers = {k.lower(): v for k, v in request.headers.items()}
    gate.require(headers, request.cookies.get(PERSON_COOKIE), "confirming")


async def is_person(request: Request) -> bool:
    """Whether the request comes from the person (see `person`)."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    return bool(request.app.state.person.allows(headers, request.cookies.get(PERSON_COOKIE)))


PERSON_COOKIE = "memory_person"


async def settings(request: Request) -> Settings:
    found: Settings = request.app.state.settings
    return found
