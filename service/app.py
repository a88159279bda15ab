"""The HTTP API and the web Memory tab: `create_app(settings)`.

Every error, whatever raised it, answers with one body shape,
`{"error": {"status", "code", "message"}}`, and a status that fits: 422 bad
input, 404 unknown, 409 drift or a held lock, 503 store unavailable, 401 a
missing or wrong token. When the app has a token, every `/v1` route needs
`Authorization: Bearer <token>`; `/healthz` and the page itself stay open
(the page asks for the token and sends it). Whatever the token, a request must
name the service by a name it answers to (`hosts`, loopback by default) and
must not change state from a foreign origin (`service.host_guard`). The routes live in one router
per area (`service.routes`); the runtime they share starts and stops in the
lifespan.
"""

from __future__ import annotations

import hmac
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from mcp.server import MCPServer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute

from service.body_limit import BodyLimit
from service.host_guard import HostGuard, allowed_hosts
from service.idempotency import Idempotency
from service.mcp import build_server
from service.person import PersonGate
from service.routes import (
    consolidation,
    conversations,
    curation,
    jobs,
    memory,
    memory_graph,
    messages,
    person,
    profile,
    promotions,
    sessions,
)
from service.routes.common import error_response
from service.routes.person import LOGIN_PATH
from service.routes.sessions import IMPORT_PATH
from service.runtime import Runtime
from substrate import (
    MemoryServiceError,
    Settings,
    memory_tier,
    migration_advice,
    tier_reason,
)
from substrate.errors import from_database_error, from_os_error

log = logging.getLogger("memory.service")
WEB = Path(str(resources.files("service") / "web"))
INGEST_PATH = "/v1/memory/ingest"
MCP_PATH = "/mcp"


# Sync routes run on a thread pool (40 threads by default). A request that waits
# (a card for its read slot, a remember for its group commit) holds its thread,
# so at 64 clients the pool ran dry and a remember waited 0.9 s for a thread.
# Waiting threads cost a stack and no CPU; the work itself is bounded elsewhere.
REQUEST_THREADS = 256


def create_app(
    settings: Settings,
    *,
    token: str | None = None,
    hosts: frozenset[str] | None = None,
    runtime_factory: Callable[[Settings], Runtime] = Runtime,
) -> FastAPI:
    mcp_server = build_server(settings, lambda: app.state.runtime.memory)
    mcp_route = _mcp_route(mcp_server)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
        # On threads: a multi-workspace service opens and closes workspaces while
        # it serves others, and neither may stall the event loop.
        runtime = await anyio.to_thread.run_sync(runtime_factory, settings)
        await anyio.to_thread.run_sync(runtime.start)
        app.state.runtime = runtime
        try:
            async with mcp_server.session_manager.run():
                yield
        finally:
            app.state.runtime = None
            await anyio.to_thread.run_sync(runtime.close)

    app = FastAPI(
        title="Memory service",
        version="0.1.0",
        description="Concept-page memory for AI assistants: remember, ingest, search, "
        "per-turn <memory> cards, jobs and the memory graph.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.runtime = None
    install_errors(app)
    limits = settings.limits
    # Innermost of the middleware: it reads a body BodyLimit has already bounded.
    app.add_middleware(
        Idempotency,
        store_for=lambda: None if app.state.runtime is None else app.state.runtime.replays,
    )
    app.add_middleware(
        BodyLimit,
        limit_for=lambda path: (
            limits.ingest_request_bytes
            if path in (INGEST_PATH, MCP_PATH, IMPORT_PATH)
            else limits.request_bytes
        ),
    )
    if token:
        _install_auth(app, token)
    # Added last, so it runs first: a foreign name is refused before anything reads the body.
    app.add_middleware(HostGuard, allowed=hosts if hosts is not None else allowed_hosts(""))

    @app.get("/healthz", tags=["service"])
    @app.get("/v1/health", tags=["service"])
    def healthz() -> dict[str, Any]:
        """The service is up; `index`: `ok`, `building` (the boot maintenance) or
        `degraded: <why>` (a store error met; a rebuild from the pages runs)."""
        runtime = app.state.runtime
        return {
            "status": "ok",
            "index": "building" if runtime is None else runtime.health.state,
            "graph": "none" if runtime is None else runtime.graph,
            "model": "starting" if runtime is None else runtime.memory.model_health(),
            "tier": memory_tier(settings.config),
            "tier_reason": tier_reason(settings.config),
            "advice": migration_advice(settings.config),
        }

    app.state.person = PersonGate(settings.workspace.state_dir)  # the person, apart
    for module in (
        person,
        memory,
        conversations,
        messages,
        sessions,
        promotions,
        profile,
        curation,
        memory_graph,
        consolidation,
        jobs,
    ):
        app.include_router(module.router)
    app.router.routes.append(mcp_route)
    app.mount("/static", StaticFiles(directory=WEB), name="static")

    @app.get("/", include_in_schema=False)
    def index_page() -> FileResponse:
        return FileResponse(WEB / "index.html")

    return app


def install_errors(app: FastAPI) -> None:
    @app.exception_handler(MemoryServiceError)
    async def service_error(request: Request, exc: MemoryServiceError) -> JSONResponse:
        return error_response(exc.http_status, exc.code, exc.message, exc.fields())

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return error_response(422, "invalid_input", "; ".join(parts))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized"}.get(
            exc.status_code, "http_error"
        )
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(OSError)
    async def os_error(request: Request, exc: OSError) -> JSONResponse:
        typed = from_os_error(exc)  # a full disk, a read-only workspace: never a 500
        return error_response(typed.http_status, typed.code, typed.message)

    @app.exception_handler(sqlite3.Error)
    async def database_error(request: Request, exc: sqlite3.Error) -> JSONResponse:
        typed = from_database_error(exc)
        return error_response(typed.http_status, typed.code, typed.message)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "internal", f"internal error: {type(exc).__name__}")


def _install_auth(app: FastAPI, token: str) -> None:
    expected = f"Bearer {token}".encode()

    @app.middleware("http")
    async def bearer(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        path = request.url.path
        if path == LOGIN_PATH:  # the one-time link's token is its own credential
            return await call_next(request)
        if path.startswith("/v1/") or path == MCP_PATH or path.startswith(MCP_PATH + "/"):
            given = request.headers.get("authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return error_response(
                    401, "unauthorized", "missing or wrong bearer token (Authorization header)"
                )
        return await call_next(request)


def _mcp_route(server: MCPServer) -> BaseRoute:
    """Streamable HTTP MCP at `/mcp`, as a route of this app (a mount would answer
    `/mcp` with a redirect). The SDK's default transport security accepts loopback
    hosts only (DNS-rebinding protection), as `memory serve` binds by default."""
    starlette_app = server.streamable_http_app(streamable_http_path=MCP_PATH)
    return next(r for r in starlette_app.routes if getattr(r, "path", None) == MCP_PATH)
