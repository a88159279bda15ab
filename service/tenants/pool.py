"""The open workspaces of a multi-workspace service: each opened on first use,
closed when idle or when more than `max_open` are open (least recently used
first, never one serving a request).

A workspace's app (`service.app.create_app` over its own settings, runtime,
store, job queue and worker) is built on a worker thread — loading its page
index and opening its store must not stall other workspaces' requests — and
its lifespan then runs in a task of its own until it is closed: the MCP
session manager's task group must be left by the task that entered it.
Opening is once per workspace at a time (a lock per id); a workspace that
fails to open (a broken config) answers its error and is not kept.

With `leases` (a multi-process service), a workspace opens here only once
this process holds its writer lease (`substrate.safety.fencing`); while
another process holds it, `use` raises `NotOwner` with that owner's address
and the request is forwarded there. Open workspaces' leases are renewed
every third of their time; one another process took over closes here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from fastapi import FastAPI

from service.tenants.ids import is_workspace_id
from substrate import Workspace
from substrate.safety.fencing import Holder, Lease, read_lease

log = logging.getLogger("memory.service")
Build = Callable[[Path], FastAPI]
REAP_EVERY_S = 5.0
DRAIN_S = 30.0  # how long a delete waits for the requests a workspace is answering


class NotOwner(Exception):
    """Another process holds the workspace's writer lease: ask it."""

    def __init__(self, lease: Lease) -> None:
        super().__init__(f"workspace owned by {lease.owner}")
        self.lease = lease


class WorkspaceGone(Exception):
    """The workspace is being deleted, or went between a request's look and its
    open: answered as one that does not exist."""


@dataclass
class _Open:
    app: FastAPI
    stop: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    last_used: float = field(default_factory=time.monotonic)
    inflight: int = 0


class WorkspacePool:
    def __init__(
        self,
        root: Path,
        build: Build,
        max_open: int,
        idle_s: float,
        leases: Holder | None = None,
    ) -> None:
        self.root = root
        self.leases = leases
        self._build = build
        self._max_open = max(1, max_open)
        self._idle_s = idle_s
        self._open: dict[str, _Open] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._closing: dict[str, anyio.Event] = {}  # a workspace reopens once it has closed
        self._deleting: set[str] = set()  # no request opens these
        self._tasks: TaskGroup | None = None

    def exists(self, workspace: str) -> bool:
        """Whether `workspace` is a workspace folder right under the root (made by
        `memory init` or the admin route; a link out of the root is not one)."""
        if not is_workspace_id(workspace):
            return False
        gone = workspace in self._deleting
        folder = self.root / workspace
        ws = Workspace(folder)
        # Every check made whatever the first found (no short cut): a request for
        # a workspace that does not exist costs what one for a real one costs.
        checks = [
            folder.is_dir(),
            not folder.is_symlink(),
            ws.config_path.is_file(),
            ws.state_dir.is_dir(),
        ]
        return all(checks) and not gone

    def workspace(self, workspace: str) -> Workspace:
        return Workspace(self.root / workspace)

    def ids(self) -> list[str]:
        """Every workspace under the root, by id."""
        found = (p.name for p in self.root.iterdir()) if self.root.is_dir() else iter(())
        return sorted(name for name in found if self.exists(name))

    def open_ids(self) -> list[str]:
        return sorted(self._open)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[WorkspacePool]:
        """The pool while the service runs: every workspace closed on the way out."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            tasks.start_soon(self._reap)
            if self.leases is not None:
                tasks.start_soon(self._renew, self.leases)
            try:
                yield self
            finally:
                for workspace in list(self._open):
                    await self.close(workspace)
                tasks.cancel_scope.cancel()
                self._tasks = None

    @asynccontextmanager
    async def use(self, workspace: str) -> AsyncIterator[FastAPI]:
        """The workspace's app for one request, opened when it is not; it stays
        open (and is not evicted) until the request is answered."""
        opened = await self._opened(workspace)
        opened.inflight += 1
        try:
            yield opened.app
        finally:
            opened.inflight -= 1
            opened.last_used = time.monotonic()

    async def delete(self, workspace: str, remove: Callable[[], object]) -> None:
        """Delete a workspace atomically against its requests: from now no request
        opens it, it is closed (its runtime stopped, its lease released), then
        `remove` takes its folder away, in that order, under the lock every open
        takes; once done the id is free for a new workspace."""
        self._deleting.add(workspace)
        try:
            async with self._locks.setdefault(workspace, anyio.Lock()):
                opened = self._open.get(workspace)
                with anyio.move_on_after(DRAIN_S):
                    while opened is not None and opened.inflight:
                        await anyio.sleep(0.01)  # the requests it is answering finish first
                await self.close(workspace)
                # no other process opens it while it goes: the lease is taken here
                # first (`NotOwner` when another process holds it: ask that one)
                await self._lease(workspace)
                await anyio.to_thread.run_sync(self._remove, workspace, remove)
        finally:
            self._deleting.discard(workspace)

    def _remove(self, workspace: str, remove: Callable[[], object]) -> None:
        if self.leases is None:
            remove()
            return
        with self.leases.removing(self.workspace(workspace).root):
            remove()

    def owner_elsewhere(self, workspace: str) -> Lease | None:
        """The live lease another process holds on the workspace (it writes it
        and must be the one to delete it); None when none does."""
        if self.leases is None or not is_workspace_id(workspace) or not self.exists(workspace):
            return None
        found = read_lease(self.workspace(workspace).state_dir)
        if found is None or not found.live() or found.owner == self.leases.owner:
            return None
        return found

    async def close(self, workspace: str) -> None:
        """Stop the workspace's runtime and forget its app (no-op when closed)."""
        closed = self._stop(workspace)
        if closed is not None:
            await self._closed(workspace, closed)

    def _stop(self, workspace: str) -> anyio.Event | None:
        """Take the workspace out of the open ones and tell its lifespan to end;
        the event set once it has (a reopen waits for it)."""
        opened = self._open.pop(workspace, None)
        if opened is None:
            return None
        self._closing[workspace] = opened.closed
        opened.stop.set()
        return opened.closed

    async def _closed(self, workspace: str, closed: anyio.Event) -> None:
        """Once the workspace has closed: no longer closing, its lease given up."""
        await closed.wait()
        if self._closing.get(workspace) is closed:
            del self._closing[workspace]
        await self._release(workspace)

    async def _opened(self, workspace: str) -> _Open:
        if workspace in self._deleting:
            raise WorkspaceGone(workspace)
        found = self._open.get(workspace)
        if found is not None:
            return found
        lock = self._locks.setdefault(workspace, anyio.Lock())
        async with lock:
            found = self._open.get(workspace)
            if found is None and not self.exists(workspace):
                raise WorkspaceGone(workspace)  # deleted while this request waited
            if found is None:
                closing = self._closing.get(workspace)
                if closing is not None:
                    await closing.wait()  # its store and files are still being let go
                await self._lease(workspace)
                try:
                    found = await self._start(workspace)
                except BaseException:
                    await self._release(workspace)
                    raise
                self._open[workspace] = found
        await self._evict(keep=workspace)
        return found

    async def _start(self, workspace: str) -> _Open:
        if self._tasks is None:
            raise RuntimeError("the workspace pool is not running")
        app = await anyio.to_thread.run_sync(self._build, self.root / workspace)
        opened = _Open(app)
        ready = anyio.Event()
        failed: list[BaseException] = []
        self._tasks.start_soon(self._hold, workspace, opened, ready, failed)
        await ready.wait()
        if failed:
            raise failed[0]
        return opened

    async def _hold(
        self, workspace: str, opened: _Open, ready: anyio.Event, failed: list[BaseException]
    ) -> None:
        """Run the workspace's lifespan until it is closed."""
        try:
            async with opened.app.router.lifespan_context(opened.app):
                ready.set()
                await opened.stop.wait()
        except Exception as exc:  # an open that failed answers its request; a close logs
            if not ready.is_set():
                failed.append(exc)
            else:
                log.exception("workspace %s did not close cleanly", workspace)
        finally:
            ready.set()
            opened.closed.set()

    async def _evict(self, keep: str) -> None:
        """Close the least recently used idle workspaces past `max_open`, in the
        background: the request that opened one does not wait for another's close."""
        while len(self._open) > self._max_open and self._tasks is not None:
            idle = [(o.last_used, w) for w, o in self._open.items() if w != keep and not o.inflight]
            if not idle:
                return  # every other one is answering a request: over the bound for now
            workspace = min(idle)[1]
            closed = self._stop(workspace)
            if closed is not None:
                self._tasks.start_soon(self._closed, workspace, closed)

    async def _lease(self, workspace: str) -> None:
        """Hold the workspace's writer lease before opening it, or `NotOwner`."""
        if self.leases is None:
            return
        ws = self.workspace(workspace)
        try:
            lease = await anyio.to_thread.run_sync(self.leases.acquire, ws.root, ws.state_dir)
        except FileNotFoundError:
            raise WorkspaceGone(workspace) from None  # deleted while this request waited
        if lease.owner != self.leases.owner:
            raise NotOwner(lease)

    async def _release(self, workspace: str) -> None:
        if self.leases is not None:
            await anyio.to_thread.run_sync(self.leases.release, self.workspace(workspace).root)

    async def _renew(self, leases: Holder) -> None:
        """Renew the open workspaces' leases; close one another process took."""
        while True:
            await anyio.sleep(leases.lease_s / 3)
            for workspace in list(self._open):
                root = self.workspace(workspace).root
                if not await anyio.to_thread.run_sync(leases.renew, root):
                    log.warning("workspace %s was taken over by another process", workspace)
                    await self.close(workspace)

    async def _reap(self) -> None:
        """Close workspaces idle for `idle_s`."""
        while True:
            await anyio.sleep(min(REAP_EVERY_S, self._idle_s))
            now = time.monotonic()
            for workspace, opened in list(self._open.items()):
                if not opened.inflight and now - opened.last_used >= self._idle_s:
                    await self.close(workspace)
