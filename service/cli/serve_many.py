"""`memory serve --workspaces DIR [--processes N]`: one or more processes
serving every workspace under DIR (docs/service.md, docs/scale-out.md).

With N > 1 this process binds the public socket and starts N worker
processes that all accept on it (the kernel spreads connections); each also
listens on a private loopback port, which the writer leases name, so a
request that lands on a process not owning its workspace is forwarded to the
one that does. A worker that dies is started again; its workspaces are taken
over by whichever process next needs them once their leases expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import click

RESTART_PAUSE_S = 1.0
QUICK_EXIT_S = 5.0
QUICK_EXITS = 5


def serve_many(
    root: Path,
    names: frozenset[str],
    host: str,
    port: int,
    max_open: int,
    idle_s: float,
    processes: int,
    listen_fd: int | None,
) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if processes > 1 and listen_fd is None:
        _supervise(root, host, port, max_open, idle_s, processes)
        return
    public = socket.socket(fileno=listen_fd) if listen_fd is not None else _bound(host, port)
    from service.runtime import SWITCH_INTERVAL_S

    sys.setswitchinterval(SWITCH_INTERVAL_S)  # a serving process: see the constant
    asyncio.run(_worker(root, names, public, max_open, idle_s, announce=listen_fd is None))


def _bound(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


async def _worker(
    root: Path,
    names: frozenset[str],
    public: socket.socket,
    max_open: int,
    idle_s: float,
    announce: bool,
) -> None:
    import uvicorn

    from service.tenants.serving import tenant_service

    private = _bound("127.0.0.1", 0)
    owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
    url = f"http://127.0.0.1:{private.getsockname()[1]}"
    app = tenant_service(root, names, max_open, idle_s, owner=owner, url=url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    task = asyncio.ensure_future(server.serve(sockets=[public, private]))
    while not server.started and not task.done():
        await asyncio.sleep(0.05)
    if server.started and announce:
        click.echo(f"memory service for the workspaces under {root} at {_shown(public)}/w/")
    await task


def _shown(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _pinned(worker: subprocess.Popen[bytes], i: int, n: int) -> subprocess.Popen[bytes]:
    """Give worker `i` of `n` its own share of this process's cores. Each
    worker sizes its model threads by the cores it may use (`usable_cpus`):
    unpinned, N workers would each run a thread per core and spin against
    each other's."""
    if not hasattr(os, "sched_setaffinity"):
        return worker
    cores = sorted(os.sched_getaffinity(0))
    share = len(cores) // n
    mine = set(cores[i * share : (i + 1) * share]) if share else {cores[i % len(cores)]}
    with contextlib.suppress(OSError):  # it exited already: the supervisor starts another
        os.sched_setaffinity(worker.pid, mine)
    return worker


def _supervise(root: Path, host: str, port: int, max_open: int, idle_s: float, n: int) -> None:
    public = _bound(host, port)
    public.set_inheritable(True)
    fd = public.fileno()
    args = [
        "serve", "--workspaces", str(root), "--host", host, "--listen-fd", str(fd),
        "--max-open", str(max_open), "--idle-close", str(idle_s),
    ]  # fmt: skip
    # -P: the worker's imports come from the installed packages, never from the
    # folder it was started in (a `bench/` or a checkout with a same-named module)
    command = [sys.executable, "-P", "-c", "from service.cli import cli; cli()", *args]
    workers = [_pinned(subprocess.Popen(command, pass_fds=[fd]), i, n) for i in range(n)]
    click.echo(
        f"memory service for the workspaces under {root} at {_shown(public)}/w/ ({n} processes)"
    )
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    started = [time.monotonic()] * n
    quick = 0  # workers in a row that died within `QUICK_EXIT_S` of starting
    while not stopping and quick < QUICK_EXITS:
        time.sleep(0.2)
        for i, worker in enumerate(workers):
            if worker.poll() is not None and not stopping:
                quick = quick + 1 if time.monotonic() - started[i] < QUICK_EXIT_S else 0
                said = f"worker {worker.pid} exited ({worker.returncode}); starting another"
                click.echo(said, err=True)
                time.sleep(RESTART_PAUSE_S)
                workers[i] = _pinned(subprocess.Popen(command, pass_fds=[fd]), i, n)
                started[i] = time.monotonic()
    if quick >= QUICK_EXITS:
        click.echo(f"workers keep exiting at start ({quick} in a row): stopping", err=True)
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
    click.echo("memory service stopped")
    if quick >= QUICK_EXITS:
        raise SystemExit(1)
