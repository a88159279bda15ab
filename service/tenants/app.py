"""The multi-workspace service: `/w/{workspace}/…` routed to each workspace's
own app, `/admin/workspaces` to manage them.

Isolation is decided here, once per request, at the edge: the path's
workspace id is checked (`ids`), its token compared with the one the
workspace holds (`tokens`), and the request handed to that workspace's app
with the prefix taken off. Everything below — routes, MCP tools, the web
tab's calls, the runtime, the store, the job queue — was built over that
workspace's settings alone and cannot name another. A request for a
workspace that does not exist, or with a missing or wrong token, gets the
same 404: no answer tells which workspaces exist. The web page itself (static,
no data) is served under any valid id; it asks for the token.

The admin token (`MEMORY_ADMIN_TOKEN`) creates, lists and deletes
workspaces and opens none of them; without it there are no admin routes.
"""

from __future__ import annotations

import hmac
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette._utils import get_route_path

from service.app import WEB, install_errors
from service.body_limit import BodyLimit
from service.host_guard import App, HostGuard, Receive, Scope, Send
from service.routes.common import error_response
from service.tenants.forward import Forwarder, was_forwarded
from service.tenants.ids import checked_workspace_id, is_workspace_id
from service.tenants.pool import NotOwner, WorkspaceGone, WorkspacePool
from service.tenants.tokens import decoy_workspace, opens, workspace_token
from substrate import (
    LockHeldError,
    MemoryServiceError,
    NotFoundError,
    init_workspace,
    open_workspace,
)
from substrate.errors import StoreHeldError, TransientError
from substrate.safety.fencing import Lease

PREFIX = "/w/"
ADMIN_WORKSPACES = "/admin/workspaces"
MOVE_WAIT_S = 15.0  # how long a request waits for its workspace to change hands
HIDDEN = "no such workspace, or a missing or wrong token (Authorization: Bearer <token>)"
ADMIN_BODY_BYTES = 4096


class NewWorkspace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: str


def create_tenant_app(
    pool: WorkspacePool,
    *,
    admin_token: str | None,
    hosts: frozenset[str],
    on_create: Callable[[Path], None] = lambda folder: None,
    on_delete: Callable[[Path], None] = lambda folder: None,
) -> App:
    """The whole service: the host guard, then `/w/…` or the admin app.
    `on_create`: what a new workspace is given beside `memory init`'s files
    (the service's Qdrant server); `on_delete`: what else a deleted workspace
    leaves (its points in a shared collection), done before its folder goes."""
    forward = Forwarder()
    admin = _admin_app(pool, admin_token, (on_create, on_delete), forward)
    return HostGuard(Tenants(admin, _web_app(), pool, forward), allowed=hosts)


class Tenants:
    def __init__(
        self, admin: FastAPI, web: FastAPI, pool: WorkspacePool, forward: Forwarder
    ) -> None:
        self._admin = admin
        self._web = web
        self._pool = pool
        self._decoy = decoy_workspace(Path(tempfile.mkdtemp(prefix="memory-decoy-")))
        self._forward = forward

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = get_route_path(scope) if scope["type"] in ("http", "websocket") else ""
        if not path.startswith(PREFIX):
            owner = self._deleted_elsewhere(scope, path)
            if owner is not None:  # the process that writes it deletes it
                await self._forward(owner.url, scope, receive, send)
                return
            await self._admin(scope, receive, send)
            return
        workspace, slash, rest = path[len(PREFIX) :].partition("/")
        rest = slash + rest
        if not is_workspace_id(workspace) or not _plain(scope, workspace):
            await _hidden(scope, receive, send)
            return
        if not rest:
            target = f"{scope.get('root_path', '')}{PREFIX}{workspace}/"
            await RedirectResponse(target, status_code=307)(scope, receive, send)
            return
        child = _child_scope(scope, workspace)
        if rest == "/" or rest.startswith("/static/"):
            await self._web(child, receive, send)  # the same page for any id
            return
        found = self._pool.exists(workspace)
        checked = self._pool.workspace(workspace) if found else self._decoy
        if not (opens(checked, _bearer(scope)) and found):  # one path, found or not
            await _hidden(scope, receive, send)
            return
        await self._answer(workspace, child, scope, receive, send)

    def _deleted_elsewhere(self, scope: Scope, path: str) -> Lease | None:
        """For an admin delete of a workspace another process holds open: that
        process's lease (it closes the workspace, lets go of its lease and
        removes its folder, in that order; from here the folder would go from
        under its writes)."""
        if scope["type"] != "http" or scope["method"] != "DELETE" or was_forwarded(scope):
            return None
        head, _, workspace = path.rpartition("/")
        if head != ADMIN_WORKSPACES:
            return None
        return self._pool.owner_elsewhere(workspace)

    async def _answer(
        self, workspace: str, child: Scope, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The workspace's app answers, here or at the process that owns it. While
        its lease moves between processes (the old owner still lets go of the
        store, or a forwarded request met an owner that just gave it up) the
        request waits, bounded, rather than answering 503."""
        deadline = anyio.current_time() + MOVE_WAIT_S
        pause = 0.05
        while True:
            try:
                async with self._pool.use(workspace) as app:
                    await app(child, receive, send)
                return
            except StoreHeldError as exc:
                if anyio.current_time() >= deadline:
                    await _failed(exc, scope, receive, send)
                    return
            except MemoryServiceError as exc:  # it could not open (a broken config, a full disk)
                await _failed(exc, scope, receive, send)
                return
            except WorkspaceGone:
                await _hidden(scope, receive, send)
                return
            except NotOwner as elsewhere:  # another process writes this workspace: ask it
                if scope["type"] == "http" and not was_forwarded(scope):
                    await self._forward(elsewhere.lease.url, scope, receive, send)
                    return
                if scope["type"] != "http" or anyio.current_time() >= deadline:
                    moving = error_response(
                        503, "transient", "the workspace is changing hands; retry"
                    )
                    await moving(scope, receive, send)
                    return
            await anyio.sleep(pause)
            pause = min(pause * 2, 0.5)


async def _failed(exc: MemoryServiceError, scope: Scope, receive: Receive, send: Send) -> None:
    response = error_response(exc.http_status, exc.code, exc.message, exc.fields())
    await response(scope, receive, send)


def _plain(scope: Scope, workspace: str) -> bool:
    """Whether the raw path spells the id as it is (no percent-encoding in it)."""
    raw = bytes(scope.get("raw_path") or scope["path"].encode())
    head = (scope.get("root_path", "") + PREFIX + workspace).encode()
    return raw.startswith(head) and raw[len(head) : len(head) + 1] in (b"", b"/", b"?")


def _child_scope(scope: Scope, workspace: str) -> Scope:
    """The request as the workspace's app sees it: mounted at its prefix (the
    ASGI way: the path stays whole, `root_path` names the prefix, and routing
    matches what follows it)."""
    return {**scope, "root_path": scope.get("root_path", "") + f"{PREFIX}{workspace}"}


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            text = bytes(value).decode("latin-1")
            return text[7:] if text.startswith("Bearer ") else None
    return None


async def _hidden(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        await send({"type": "websocket.close", "code": 1008})
        return
    await error_response(404, "not_found", HIDDEN)(scope, receive, send)


def _web_app() -> FastAPI:
    web = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    web.mount("/static", StaticFiles(directory=WEB), name="static")

    @web.get("/", include_in_schema=False)
    def index_page() -> FileResponse:
        return FileResponse(WEB / "index.html")

    return web


Hooks = tuple[Callable[[Path], None], Callable[[Path], None]]  # on create, on delete


def _admin_app(
    pool: WorkspacePool, admin_token: str | None, hooks: Hooks, forward: Forwarder
) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with pool.running():
                yield
        finally:
            await forward.aclose()

    app = FastAPI(
        title="Memory service (many workspaces)",
        version="0.1.0",
        description="Workspaces under /w/{workspace}/ (each its own token); "
        "/admin/workspaces with the admin token.",
        lifespan=lifespan,
    )
    install_errors(app)

    @app.exception_handler(404)
    async def unknown(request: Request, exc: Exception) -> JSONResponse:
        return error_response(404, "not_found", HIDDEN)  # one 404 for every path

    app.add_middleware(BodyLimit, limit_for=lambda path: ADMIN_BODY_BYTES)

    @app.get("/healthz", tags=["service"])
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "workspaces_open": len(pool.open_ids())}

    if admin_token:
        _admin_routes(app, pool, admin_token, hooks)
    return app


def _admin_routes(app: FastAPI, pool: WorkspacePool, admin_token: str, hooks: Hooks) -> None:
    on_create, on_delete = hooks
    expected = f"Bearer {admin_token}".encode()

    async def admin(request: Request) -> None:
        given = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(given, expected):
            raise HTTPException(401, "missing or wrong admin token (Authorization: Bearer <token>)")

    guarded = [Depends(admin)]

    @app.post("/admin/workspaces", status_code=201, tags=["admin"], dependencies=guarded)
    async def create(body: NewWorkspace) -> dict[str, Any]:
        """A new workspace and its token (shown once here; `memory workspace
        token` prints it again)."""
        workspace = checked_workspace_id(body.workspace)
        if (pool.root / workspace).exists():
            raise LockHeldError(f"workspace {workspace!r} already exists")
        token = await anyio.to_thread.run_sync(_initialised, pool, workspace, on_create)
        return {"workspace": workspace, "token": token}

    @app.get("/admin/workspaces", tags=["admin"], dependencies=guarded)
    def listed() -> dict[str, Any]:
        """Every workspace's id and whether it is open; nothing of its contents."""
        opened = set(pool.open_ids())
        return {"workspaces": [{"workspace": w, "open": w in opened} for w in pool.ids()]}

    @app.delete(ADMIN_WORKSPACES + "/{workspace}", tags=["admin"], dependencies=guarded)
    async def delete(workspace: str) -> dict[str, Any]:
        """Close the workspace and remove its folder: it disappears at once (a
        rename within the served folder), its files go after."""
        if not pool.exists(workspace):
            raise NotFoundError(f"no workspace {workspace[:64]!r}")

        def remove() -> None:
            on_delete(pool.root / workspace)
            gone = pool.root / f".deleted-{workspace}-{secrets.token_hex(4)}"
            (pool.root / workspace).rename(gone)
            shutil.rmtree(gone)

        try:
            await pool.delete(workspace, remove)  # closed, its lease taken here, then removed
        except NotOwner:  # another process opened it meanwhile: it must delete it
            raise TransientError(
                f"workspace {workspace!r} was just opened by another process; retry"
            ) from None
        return {"deleted": workspace}


def _initialised(pool: WorkspacePool, workspace: str, on_create: Callable[[Path], None]) -> str:
    folder = pool.root / workspace
    init_workspace(folder)
    on_create(folder)
    token, _ = workspace_token(open_workspace(folder))
    return token
