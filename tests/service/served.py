"""A real uvicorn server on loopback, in a thread, for tests that need a socket."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

STARTUP_S = 120.0


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 (a free port) with its lifespan; yields the base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def wait_for_startup_maintain(client: httpx.Client, timeout_s: float = STARTUP_S) -> None:
    """Until the service's startup maintain job has run. A transport error is
    retried: a service still starting, or a keep-alive connection the server
    closed while this machine stalled, is not a failure of the service."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            runs = client.get("/v1/memory/stats").json()["last_runs"]
        except httpx.TransportError:
            runs = {}
        if "memory_v3_maintain" in runs:
            return
        time.sleep(0.1)
    raise AssertionError("the service's startup maintain never ran")
