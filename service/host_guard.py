"""Which names may reach the service, and which pages may change it.

A service on loopback with no token is open to anything on this machine,
and a web page whose name rebinds to 127.0.0.1 *is* on this machine: its
requests carry `Host: rebind.example:PORT`, and the browser treats the
service as that page's own origin. So every request (but `/healthz`, which
a container's probe sends with whatever name it has) must name the service
by one of the names it was bound to: the loopback names by default, plus
the bound address and any names the operator configured
(`memory serve --allow-host`, env `MEMORY_ALLOWED_HOSTS`). A request that
changes state must also come from the service's own origin when a browser
says where it comes from (`Origin`), so another local page cannot post to
it either. The check is one middleware in front of everything else, so a
route added later is covered without knowing it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from service.discovery import is_loopback

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

ANY_HOST = "*"
OPEN_PATHS = frozenset({"/healthz"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def allowed_hosts(bound: str, configured: Iterable[str] = ()) -> frozenset[str]:
    """The names a request may use besides loopback's (always answered): the
    bound address when it is a real one (not a wildcard), and what the operator
    configured."""
    names: set[str] = set()
    host = bound.strip().strip("[]").lower()
    if host and host not in ("0.0.0.0", "::"):
        names.add(host)
    for name in configured:
        cleaned = name.strip().strip("[]").lower().rstrip(".")
        if cleaned:
            names.add(cleaned)
    return frozenset(names)


def host_name(authority: str) -> str:
    """`Host` or an origin's authority without its port, lowercased:
    `[::1]:8765` -> `::1`, `Example.COM.:80` -> `example.com`."""
    value = authority.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else ""
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def is_allowed(name: str, allowed: frozenset[str]) -> bool:
    return ANY_HOST in allowed or name in allowed or is_loopback(name)


class HostGuard:
    def __init__(self, app: App, allowed: frozenset[str]) -> None:
        self._app = app
        self._allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self._app(scope, receive, send)
            return
        headers = headers_of(scope)
        refusal = self._refusal(str(scope.get("method", "GET")), headers)
        if refusal is not None:
            await _forbidden(send, refusal)
            return
        await self._app(scope, receive, send)

    def _refusal(self, method: str, headers: dict[str, str]) -> str | None:
        host = headers.get("host", "")
        if not is_allowed(host_name(host), self._allowed):
            return (
                f"this service does not answer to the name {host_name(host)!r} (Host header): "
                "serve with --allow-host NAME, or env MEMORY_ALLOWED_HOSTS, to add a name"
            )
        origin = headers.get("origin")
        if method.upper() in SAFE_METHODS or origin is None:
            return None
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != host.strip().lower():
            return f"a request from {origin[:200]!r} may not change this service (Origin header)"
        return None


def headers_of(scope: Scope) -> dict[str, str]:
    """A request's headers by lowercased name (the first of each), as text."""
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        out.setdefault(bytes(key).decode("latin-1").lower(), bytes(value).decode("latin-1"))
    return out


async def _forbidden(send: Send, message: str) -> None:
    error = {"status": 403, "code": "forbidden", "message": message}
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
