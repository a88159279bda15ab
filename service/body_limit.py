"""Request bodies bounded before any handler sees them (`memory.limits`).

A body over its route's limit is answered 413 with the one error body, and
the handler never runs, so nothing is stored. The limit is checked against
`Content-Length` when the client sends one, and counted as the body arrives
either way (a chunked upload cannot lie its way past it); bodies within the
limit are buffered here and replayed to the app, which would read them whole
anyway. The rest of a body over the limit is read and dropped (up to
`DRAIN_BYTES`) before the 413 goes out, so a client that writes its whole body
first reads the answer rather than a broken pipe.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette._utils import get_route_path

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
# What is read and dropped of a body over its limit before the 413 is sent.
DRAIN_BYTES = 64 * 1024 * 1024


class BodyLimit:
    def __init__(self, app: App, limit_for: Callable[[str], int]) -> None:
        self._app = app
        self._limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        limit = self._limit_for(get_route_path(scope))  # under /w/{workspace}: the app's own
        declared = content_length(scope)
        if declared is not None and declared > limit:
            await _drain(receive, DRAIN_BYTES if declared <= DRAIN_BYTES else 0)
            await _too_large(send, declared, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # a disconnect: let the app see it
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > limit:
                if message.get("more_body", False):
                    await _drain(receive, DRAIN_BYTES)
                await _too_large(send, size, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self._app(scope, replay, send)


async def _drain(receive: Receive, budget: int) -> None:
    """Read and drop what the client still sends, up to `budget` bytes, so a
    client that writes its whole body before it reads (Python's own HTTP
    clients do) reads the 413 instead of a broken pipe; a body past the budget
    is cut off by closing the connection."""
    read = 0
    while read < budget:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def content_length(scope: Scope) -> int | None:
    """The request's declared `Content-Length`, or None (absent or not a number)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _too_large(send: Send, size: int, limit: int) -> None:
    message = f"request body is {size} bytes or more, over the limit of {limit} (memory.limits)"
    body = json.dumps({"error": {"status": 413, "code": "too_large", "message": message}})
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})
