"""Composes the multi-workspace service: one workspace's app over the shared
models, the pool that opens them, the edge that routes to them."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from service.app import create_app
from service.cli.capabilities import cli_capabilities
from service.host_guard import App
from service.runtime import Runtime
from service.settings_loader import admin_token, build_settings, default_qdrant
from service.tenants.app import create_tenant_app
from service.tenants.models import SharedModels
from service.tenants.pool import WorkspacePool
from substrate import Settings, Workspace
from substrate.config.config_file import set_keys
from substrate.config.keys import QDRANT
from substrate.config.tuning import resolve_qdrant_server
from substrate.index import ServerStore, open_store
from substrate.safety.fencing import Holder

SHARED = ".shared"  # under the served folder: no workspace id starts with a dot


LEASE_S = 10.0  # a killed process's workspaces are taken over within this


def tenant_service(
    root: Path,
    hosts: frozenset[str],
    max_open: int,
    idle_s: float,
    *,
    owner: str,
    url: str,
) -> App:
    """The service over the workspaces under `root`, as the process `owner`
    whose private address is `url` (where other processes forward requests for
    the workspaces it holds)."""
    models = SharedModels(root / SHARED)

    def runtime(settings: Settings) -> Runtime:
        return Runtime(settings, embedder=models.dense(settings), capabilities=cli_capabilities)

    def build(folder: Path) -> FastAPI:
        settings = build_settings(folder, tenant=folder.name)
        return create_app(settings, hosts=hosts, runtime_factory=runtime)

    pool = WorkspacePool(root.resolve(), build, max_open, idle_s, Holder(owner, url, LEASE_S))
    return create_tenant_app(
        pool,
        admin_token=admin_token(),
        hosts=hosts,
        on_create=point_at_server,
        on_delete=drop_shared_index,
    )


def point_at_server(folder: Path) -> None:
    """A new workspace's index on the service's Qdrant server, when it has one."""
    table = default_qdrant()
    if table:
        set_keys(Workspace(folder).config_path, QDRANT, table)


def drop_shared_index(folder: Path) -> None:
    """A deleted workspace's points in a shared Qdrant collection (both of its
    corpora); its embedded store goes with its folder."""
    settings = build_settings(folder, tenant=folder.name)
    if resolve_qdrant_server(settings.config) is None:
        return
    for corpus in (settings, settings.pkb()):
        store = open_store(corpus)
        assert isinstance(store, ServerStore)
        try:
            store.drop()
        finally:
            store.close()
