"""`Idempotency-Key` on write routes: the middleware over `replays.ReplayStore`.

A POST that carries the header is answered from the key store when the same
request came with the same key within a day (`Idempotent-Replayed: true`),
else run and its answer kept (a read's never; a forget's by its ids alone:
`replays.keeps`, `replays.ids_only`). Requests without the header, and every other
method, pass through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
from starlette._utils import get_route_path

from service.body_limit import App, Message, Receive, Scope, Send
from service.host_guard import headers_of
from service.replays import ReplayStore, check_key, ids_only, keeps
from substrate.errors import MemoryServiceError

HEADER = "idempotency-key"
REPLAYED = b"idempotent-replayed"


class Idempotency:
    def __init__(self, app: App, store_for: Callable[[], ReplayStore | None]) -> None:
        self._app = app
        self._store_for = store_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = headers_of(scope).get(HEADER) if scope["type"] == "http" else None
        writes = scope["type"] == "http" and scope["method"] == "POST"
        store = self._store_for() if key is not None and writes else None
        if key is None or store is None or not keeps(get_route_path(scope)):
            await self._app(scope, receive, send)
            return
        body = await _body(receive)
        route = get_route_path(scope)
        try:
            claim = await anyio.to_thread.run_sync(store.begin, check_key(key), "POST", route, body)
        except MemoryServiceError as exc:
            await _send(send, exc.http_status, _error(exc))
            return
        if claim.replay is not None:
            await _send(send, claim.replay.status, claim.replay.body, replayed=True)
            return
        status = 500
        chunks: list[bytes] = []

        async def kept(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body"):  # kept before the client has it all
                    kept_body = ids_only(route, b"".join(chunks))
                    await anyio.to_thread.run_sync(store.finish, claim, status, kept_body)
            await send(message)

        try:
            await self._app(scope, _replay(body), kept)
        except BaseException:
            await anyio.to_thread.run_sync(store.abandon, claim)
            raise


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(bytes(message.get("body", b"")))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def _error(exc: MemoryServiceError) -> bytes:
    error = {"status": exc.http_status, "code": exc.code, "message": exc.message}
    return json.dumps({"error": {**error, **exc.fields()}}).encode()


async def _send(send: Send, status: int, body: bytes, replayed: bool = False) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if replayed:
        headers.append((REPLAYED, b"true"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
