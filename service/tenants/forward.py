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
from collections.abc import AsyncIterator

import httpx

from service.body_limit import content_length
from service.host_guard import Receive, Scope, Send
from service.routes.common import error_response

FORWARDED = b"x-memory-forwarded"
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
     b"proxy-authorization", b"proxy-authenticate", b"content-length"}
)  # fmt: skip
TIMEOUT_S = 600.0  # a consolidation or an ingest may run long; the owner bounds its own work
FORWARD_MOST_BYTES = 64 * 1024 * 1024  # the default ingest bound: no route takes more
# The owner hung up on a body still arriving (it refused it past its route's limit).
HUNG_UP = (httpx.WriteError, httpx.ReadError, httpx.RemoteProtocolError)


def was_forwarded(scope: Scope) -> bool:
    return any(name == FORWARDED for name, _ in scope.get("headers", []))


class Forwarder:
    def __init__(self, most_bytes: int = FORWARD_MOST_BYTES) -> None:
        self._most = most_bytes
        # httpx says every request it sends at INFO: a forwarded request is the
        # same request, and its own answer is what the log may say of it.
        for name in ("httpx", "httpcore"):
            logging.getLogger(name).setLevel(logging.WARNING)
        self._client = httpx.AsyncClient(timeout=TIMEOUT_S, follow_redirects=False)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __call__(self, owner_url: str, scope: Scope, receive: Receive, send: Send) -> None:
        """The request passed on as it arrives (never held whole here: four
        160 MiB bodies sent to the wrong process must not grow it by 640 MiB),
        refused with 413 past `FORWARD_MOST_BYTES` (declared or counted); the
        owner bounds it by its route's own limit."""
        declared = content_length(scope)
        if declared is not None and declared > self._most:
            await _too_large(scope, receive, send, self._most)
            return
        raw = bytes(scope.get("raw_path") or scope["path"].encode())
        query = scope.get("query_string", b"")
        url = owner_url + raw.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in HOP_BY_HOP]
        counted = _Counted(receive, self._most)
        request = self._client.build_request(
            scope["method"], url, headers=[*headers, (FORWARDED, b"1")], content=counted.body()
        )
        try:
            answer = await self._client.send(request, stream=True)
        except _TooLarge:
            await _too_large(scope, receive, send, self._most)
            return
        except _ClientGone:
            return
        except httpx.HTTPError as exc:
            if not counted.done and isinstance(exc, HUNG_UP):
                # The owner stopped reading before the body's end: it answered 413
                # past its route's own limit and closed (what it said cannot be
                # read while the body is still going); say the same.
                await _too_large(scope, receive, send, None)
                return
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


class _TooLarge(Exception):
    pass


class _ClientGone(Exception):
    pass


class _Counted:
    """The client's body as an async stream for the owner, counted as it goes."""

    def __init__(self, receive: Receive, most: int) -> None:
        self._receive = receive
        self._most = most
        self.done = False  # the whole body was passed on

    async def body(self) -> AsyncIterator[bytes]:
        total = 0
        while True:
            message = await self._receive()
            if message["type"] != "http.request":
                raise _ClientGone
            chunk = bytes(message.get("body", b""))
            total += len(chunk)
            if total > self._most:
                raise _TooLarge
            if chunk:
                yield chunk
            if not message.get("more_body"):
                self.done = True
                return


async def _too_large(scope: Scope, receive: Receive, send: Send, most: int | None) -> None:
    said = (
        f"the request body is over {most} bytes, the most any route takes"
        if most is not None
        else "the request body is over this route's limit (memory.limits)"
    )
    await error_response(413, "too_large", said)(scope, receive, send)
