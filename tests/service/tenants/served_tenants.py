"""A multi-workspace service on loopback over the hashing embedder, for tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from fastapi import FastAPI

from service.app import create_app
from service.runtime import Runtime
from service.settings_loader import build_settings
from service.tenants.app import create_tenant_app
from service.tenants.pool import WorkspacePool
from substrate import Settings
from tests.embedders import HashingEmbedder
from tests.service.served import served

ADMIN = "admin-s3cret"
HOSTS = frozenset({"127.0.0.1", "localhost"})


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


def tenant_pool(root: Path, max_open: int = 16, idle_s: float = 600.0) -> WorkspacePool:
    def build(folder: Path) -> FastAPI:
        return create_app(build_settings(folder), hosts=HOSTS, runtime_factory=runtime)

    return WorkspacePool(root, build, max_open, idle_s)


@contextmanager
def tenants(
    root: Path, admin: str | None = ADMIN, max_open: int = 16, idle_s: float = 600.0
) -> Iterator[tuple[httpx.Client, WorkspacePool]]:
    """The service over `root`, and a client of it (no token set)."""
    pool = tenant_pool(root, max_open, idle_s)
    app = create_tenant_app(pool, admin_token=admin, hosts=HOSTS)
    with served(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client, pool


def create(client: httpx.Client, workspace: str) -> dict[str, str]:
    """Make a workspace through the admin route; its bearer header."""
    made = client.post("/admin/workspaces", json={"workspace": workspace}, headers=bearer(ADMIN))
    assert made.status_code == 201, made.text
    return bearer(made.json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
