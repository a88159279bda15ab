"""A forwarded request's body is passed on as it arrives, never held whole by
the process that forwards it, and refused with 413 past the bound, declared or
counted; within it the owner answers."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from fastapi import FastAPI, Request

from service.tenants.forward import Forwarder
from tests.service.served import served

CHUNK = 64 * 1024


def echo_app() -> FastAPI:
    app = FastAPI()

    @app.post("/v1/memory/remember")
    async def remember(request: Request) -> dict[str, int]:
        return {"bytes": len(await request.body())}

    return app


def call(url: str, chunks: int, declared: int | None, most: int) -> tuple[int, bytes, int]:
    """Forward a POST of `chunks` chunks; (status, body, chunks the client sent)."""
    sent = 0
    out: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        sent += 1
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": sent < chunks}

    async def send(message: MutableMapping[str, Any]) -> None:
        out.append(dict(message))

    headers = [(b"content-type", b"application/json")]
    if declared is not None:
        headers.append((b"content-length", str(declared).encode()))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/memory/remember",
        "raw_path": b"/v1/memory/remember",
        "query_string": b"",
        "headers": headers,
    }

    async def main() -> None:
        forward = Forwarder(most_bytes=most)
        try:
            await forward(url, scope, receive, send)
        finally:
            await forward.aclose()

    asyncio.run(main())
    status = next(m["status"] for m in out if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")
    return status, body, sent


def test_a_body_within_the_bound_reaches_the_owner_whole() -> None:
    with served(echo_app()) as url:
        status, body, _ = call(url, 20, None, 64 * CHUNK)
    assert status == 200 and body == b'{"bytes":%d}' % (20 * CHUNK)


def test_a_body_past_the_bound_is_refused_before_it_is_read_whole() -> None:
    with served(echo_app()) as url:
        declared = call(url, 400, 400 * CHUNK, 64 * CHUNK)
        counted = call(url, 400, None, 64 * CHUNK)
    assert declared[0] == 413 and declared[2] == 0  # refused on its declared length alone
    assert counted[0] == 413 and counted[2] <= 66  # stopped once past the bound
    assert b"too_large" in counted[1]
