"""Forwarding a request to the process that owns its workspace.

In a multi-process service every process accepts on the shared port, so a
request may land on one that does not hold its workspace's writer lease.
That process hands it, unchanged, to the owner's private loopback address
(the lease names it) and streams the answer back: reads and writes go to the
owner alone. A forwarded request carries `FORWARDED`; a process that is not
the owner either (the lease moved meanwhile) waits for the move to settle
(bounded, `tenants.app.MOVE_WAIT_S`) instead of passing it on again.
"""

from __future__ import annotations

import logging

import httpx

from service.host_guard import Receive, Scope, Send
from service.routes.common import error_response

FORWARDED = b"x-memory-forwarded"
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
     b"proxy-authorization", b"proxy-authenticate", b"content-length"}
)  # fmt: skip
TIMEOUT_S = 600.0  # a consolidation or an ingest may run long; the owner bounds its own work


def was_forwarded(scope: Scope) -> bool:
    return any(name == FORWARDED for name, _ in scope.get("headers", []))


class Forwarder:
    def __init__(self) -> None:
        # httpx says every request it sends at INFO: a forwarded request is the
        # same request, and its own answer is what the log may say of it.
        for name in ("httpx", "httpcore"):
            logging.getLogger(name).setLevel(logging.WARNING)
        self._client = httpx.AsyncClient(timeout=TIMEOUT_S, follow_redirects=False)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __call__(self, owner_url: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        raw = bytes(scope.get("raw_path") or scope["path"].encode())
        query = scope.get("query_string", b"")
        url = owner_url + raw.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in HOP_BY_HOP]
        request = self._client.build_request(
            scope["method"], url, headers=[*headers, (FORWARDED, b"1")], content=bytes(body)
        )
        try:
            answer = await self._client.send(request, stream=True)
        except httpx.HTTPError:
            busy = error_response(
                503, "transient", "the process that holds this workspace did not answer; retry"
            )
            await busy(scope, receive, send)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": answer.status_code,
                    "headers": [
                        (k, v) for k, v in answer.headers.raw if k.lower() not in HOP_BY_HOP
                    ],
                }
            )
            async for chunk in answer.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await answer.aclose()
