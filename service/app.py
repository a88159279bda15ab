"""The HTTP API and the web Memory tab: `create_app(settings)`.

Every error, whatever raised it, answers with one body shape,
`{"error": {"status", "code", "message"}}`, and a status that fits: 422 bad
input, 404 unknown, 409 drift or a held lock, 503 store unavailable, 401 a
missing or wrong token. When the app has a token, every `/v1` route needs
`Authorization: Bearer <token>`; `/healthz` and the page itself stay open
(the page asks for the token and sends it).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ingest import IngestOptions, InlineSource
from ingest import run as run_ingest
from service.graph import build_graph, node_detail
from service.runtime import REEMBED, Runtime
from service.worker import CONSOLIDATE
from substrate import (
    MemoryServiceError,
    Settings,
    collect_stats,
    iso_utc,
    memory_tier,
    remember,
)
from substrate.config import graph_unavailable_reason

log = logging.getLogger("memory.service")
WEB = Path(str(resources.files("service") / "web"))
INGEST_WAIT_S = 600.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RememberIn(_Strict):
    text: str = Field(min_length=1, description="The fact to remember.")
    hints: list[str] = Field(default_factory=list, description="Slugs of related pages.")


class RememberOut(BaseModel):
    id: str
    at: str
    text: str


class PageIn(_Strict):
    slug: str = Field(min_length=1)
    content: str = Field(description="The whole page: optional YAML frontmatter, then markdown.")


class IngestIn(_Strict):
    pages: list[PageIn]
    dry_run: bool = False
    overwrite: bool = False
    source: str | None = Field(None, description="Adds `source: import:SOURCE` where missing.")
    wait: bool = Field(True, description="Return only once written pages are searchable.")


class SearchIn(_Strict):
    query: str = Field(min_length=1)
    k: int = Field(10, ge=1, le=1000)
    capabilities: bool = False


class CardIn(_Strict):
    message: str
    conversation_id: str | None = None
    voice_front_door: bool = False


class MaintainIn(_Strict):
    rebuild: bool = False


class ErrorBody(BaseModel):
    status: int
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 404, 409, 422, 503)
}


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"status": status, "code": code, "message": message}}, status_code=status
    )


def create_app(
    settings: Settings,
    *,
    token: str | None = None,
    runtime_factory: Callable[[Settings], Runtime] = Runtime,
) -> FastAPI:
    state: dict[str, Runtime] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = runtime_factory(settings)
        runtime.start()
        state["runtime"] = runtime
        try:
            yield
        finally:
            runtime.close()
            state.clear()

    app = FastAPI(
        title="Memory service",
        version="0.1.0",
        description="Concept-page memory for AI assistants: remember, ingest, search, "
        "per-turn <memory> cards, jobs and the memory graph.",
        lifespan=lifespan,
    )

    def rt() -> Runtime:
        runtime = state.get("runtime")
        if runtime is None:
            raise MemoryServiceError("the service is starting or stopping")
        return runtime

    _install_errors(app)
    if token:
        _install_auth(app, token)

    @app.get("/healthz", tags=["service"])
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "tier": memory_tier(settings.config)}

    @app.post("/v1/memory/remember", tags=["memory"], responses=ERRORS)
    def remember_post(body: RememberIn) -> RememberOut:
        entry = remember(settings, body.text, body.hints)
        rt().scheduler.nudge()
        return RememberOut(id=entry.id, at=iso_utc(entry.at) or "", text=entry.text)

    @app.post(
        "/v1/memory/ingest",
        tags=["memory"],
        operation_id="memory_ingest_post",
        responses=ERRORS,
    )
    def ingest_post(body: IngestIn) -> dict[str, Any]:
        manifest = InlineSource(tuple((p.slug, p.content) for p in body.pages))
        options = IngestOptions(dry_run=body.dry_run, overwrite=body.overwrite, source=body.source)
        report = run_ingest(settings, manifest, options)
        out: dict[str, Any] = {**report.as_json(), "index": None, "job_id": None}
        if report.written:
            queued = rt().queue.enqueue(REEMBED, {"reason": "ingest"})
            out["job_id"] = queued.id
            if body.wait:
                job = rt().wait_for(queued, INGEST_WAIT_S)
                run = rt().last_result(queued.id) if job else None
                out["index"] = run["detail"] if run else None
        return out

    @app.post("/v1/memory/search", tags=["memory"], responses=ERRORS)
    def search_post(body: SearchIn) -> dict[str, Any]:
        runtime = rt()
        runtime.note_read()
        hits = runtime.search.search(body.query, body.k, include_capabilities=body.capabilities)
        return {"query": body.query, "hits": [h.as_json() for h in hits]}

    @app.post("/v1/memory/card", tags=["memory"], responses=ERRORS)
    def card_post(body: CardIn) -> dict[str, Any]:
        runtime = rt()
        runtime.note_read()
        blocks = runtime.injector.assemble(
            body.message, body.conversation_id, voice_front_door=body.voice_front_door
        )
        return blocks.as_json()

    @app.post("/v1/memory/maintain", tags=["memory"], responses=ERRORS)
    def maintain_post(body: MaintainIn) -> dict[str, Any]:
        return rt().maintain(rebuild=body.rebuild).as_json()

    @app.get("/v1/memory/stats", tags=["memory"], responses=ERRORS)
    def stats_get() -> dict[str, Any]:
        runtime = rt()
        return {
            **collect_stats(settings, runtime.injector.page_index()).as_json(),
            "jobs": runtime.queue.counts(),
            "last_runs": runtime.queue.last_runs(),
        }

    @app.get("/v1/memory-graph", tags=["graph"], responses=ERRORS)
    def graph_get() -> dict[str, Any]:
        unavailable = _graph_unavailable(settings)
        if unavailable:
            return unavailable
        runtime = rt()
        graph = build_graph(
            settings, runtime.injector.page_index(), runtime.injector.learned_graph()
        )
        return {"available": True, "tier": memory_tier(settings.config), **graph}

    @app.get("/v1/memory-graph-node", tags=["graph"], responses=ERRORS)
    def graph_node_get(
        node_id: str = Query(alias="id", min_length=1, description="A page slug or buffer:<id>."),
    ) -> dict[str, Any]:
        unavailable = _graph_unavailable(settings)
        if unavailable:
            return unavailable
        injector = rt().injector
        return node_detail(
            settings,
            injector.page_index(),
            injector.learned_graph(),
            injector.recent_turns(),
            node_id,
        )

    @app.post("/v1/consolidation/run-now", tags=["jobs"], responses=ERRORS)
    def consolidation_run_now() -> dict[str, Any]:
        queued = rt().queue.enqueue(CONSOLIDATE, {"reason": "run-now"})
        return {"job_id": queued.id, "deduped": queued.deduped}

    @app.get("/v1/jobs/{job_id}", tags=["jobs"], responses=ERRORS)
    def job_get(job_id: int) -> dict[str, Any]:
        job = rt().queue.job(job_id)
        if job is None:
            raise StarletteHTTPException(404, f"no job {job_id}")
        return job

    app.mount("/static", StaticFiles(directory=WEB), name="static")

    @app.get("/", include_in_schema=False)
    def index_page() -> FileResponse:
        return FileResponse(WEB / "index.html")

    return app


def _graph_unavailable(settings: Settings) -> dict[str, Any] | None:
    """None when the graph can be drawn; else the tier, why not, and where to go."""
    blocked = graph_unavailable_reason(settings.config)
    if blocked is None:
        return None
    why, action = blocked
    return {
        "available": False,
        "tier": memory_tier(settings.config),
        "reason": why,
        "action": action,
    }


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(MemoryServiceError)
    async def service_error(request: Request, exc: MemoryServiceError) -> JSONResponse:
        return error_response(exc.http_status, exc.code, exc.message)

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
        if request.url.path.startswith("/v1/"):
            given = request.headers.get("authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return error_response(
                    401, "unauthorized", "missing or wrong bearer token (Authorization header)"
                )
        return await call_next(request)
