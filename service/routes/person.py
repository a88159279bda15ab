"""The person's web session: the one-time link `memory serve` prints is
exchanged here for an HttpOnly, SameSite=Strict cookie and a CSRF token
(`service.person`). The link's token is its own credential, so this route
needs no bearer token."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from service.person import SESSION_S, PersonGate
from service.routes.common import ERRORS, PERSON_COOKIE, Strict, person

router = APIRouter(prefix="/v1/person", tags=["person"], responses=ERRORS)
LOGIN_PATH = "/v1/person/login"


class LoginIn(Strict):
    token: str = Field(min_length=1, max_length=200, description="the printed link's token")


@router.post("/login")
def person_login(body: LoginIn, request: Request) -> JSONResponse:
    """Open the person's session; `csrf` goes back as `X-CSRF-Token` with each
    confirmation."""
    gate: PersonGate = request.app.state.person
    session, csrf = gate.login(body.token)
    answer = JSONResponse({"person": True, "csrf": csrf})
    answer.set_cookie(
        PERSON_COOKIE,
        session,
        max_age=int(SESSION_S),
        httponly=True,
        samesite="strict",
        path="/",
    )
    return answer


@router.post("/link", dependencies=[Depends(person)])
def person_link(request: Request) -> dict[str, str]:
    """A new one-time link to open the person's web session, for the person
    alone (their key, from a terminal: `memory person link`)."""
    gate: PersonGate = request.app.state.person
    return {"link": gate.login_link(str(request.base_url))}
