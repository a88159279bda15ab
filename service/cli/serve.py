"""`memory serve`: the HTTP API, the job worker and the web Memory tab under uvicorn."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import click

from service.cli.base import workspace_option
from service.cli.capabilities import cli_capabilities
from service.discovery import is_loopback, running_service
from service.host_guard import allowed_hosts
from service.settings_loader import build_settings, configured_hosts, service_token
from substrate import InvalidInputError, LockHeldError, Settings


@click.command()
@workspace_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Another name clients reach the service by (Host header); loopback names and the "
    "bound address always work. Also env MEMORY_ALLOWED_HOSTS (comma-separated).",
)
@click.option(
    "--workspaces",
    "workspaces",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Serve every workspace folder under DIR at /w/{workspace}/ (each opened by its own "
    "token, `memory workspace token`); admin routes with env MEMORY_ADMIN_TOKEN.",
)
@click.option(
    "--max-open",
    default=64,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="With --workspaces: workspaces kept open at once (least recently used closes first).",
)
@click.option(
    "--idle-close",
    "idle_s",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1.0),
    help="With --workspaces: seconds without a request before a workspace closes.",
)
@click.option(
    "--processes",
    default=1,
    show_default=True,
    type=click.IntRange(1, 256),
    help="With --workspaces: processes on this host, each workspace written by one of them.",
)
@click.option("--listen-fd", type=int, default=None, hidden=True)  # a worker of --processes
def serve(
    workspace: Path,
    host: str,
    port: int,
    allow_hosts: tuple[str, ...],
    workspaces: Path | None,
    max_open: int,
    idle_s: float,
    processes: int,
    listen_fd: int | None,
) -> None:
    """Run the HTTP API, the job worker and the web Memory tab.

    Loopback is open; any other address needs a bearer token in the env
    MEMORY_SERVICE_TOKEN. A request must name the service by a name it answers to
    (DNS-rebinding guard). While it runs, the CLI's index commands go through it.
    With --workspaces, one process serves many workspaces (docs/service.md)."""
    signal.signal(signal.SIGTERM, _interrupt)
    if workspaces is not None:
        from service.cli.serve_many import serve_many

        names = allowed_hosts(host, (*allow_hosts, *configured_hosts()))
        try:
            serve_many(workspaces, names, host, port, max_open, idle_s, processes, listen_fd)
        except KeyboardInterrupt:
            click.echo("memory service stopped")
        return
    if processes > 1:
        raise click.UsageError("--processes needs --workspaces DIR (one workspace is one process)")
    settings = build_settings(workspace)
    token = service_token()
    if not is_loopback(host) and not token:
        raise InvalidInputError(
            f"refusing to listen on {host} without a token: set MEMORY_SERVICE_TOKEN "
            "(clients send it as `Authorization: Bearer <token>`), or serve on 127.0.0.1"
        )
    other = running_service(settings.workspace)
    if other is not None:
        raise LockHeldError(
            f"a memory service already runs for this workspace at {other.url} (pid {other.pid})"
        )
    try:
        names = allowed_hosts(host, (*allow_hosts, *configured_hosts()))
        asyncio.run(_serve(settings, token, names, host, port))
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
        click.echo("memory service stopped")


def _interrupt(signum: int, frame: object) -> None:
    """uvicorn shuts down cleanly on SIGTERM (`docker stop`), then re-raises the
    signal under the handler it found: the default one would kill the process
    before `.substrate/service.json` is withdrawn. Stop as for Ctrl-C instead."""
    raise KeyboardInterrupt


async def _serve(
    settings: Settings, token: str | None, names: frozenset[str], host: str, port: int
) -> None:
    """Serve until stopped; `.substrate/service.json` names the URL while it listens."""
    import uvicorn

    from service.app import create_app
    from service.discovery import announce, withdraw
    from service.runtime import Runtime

    # Built before the server starts, so a full disk or a store held by another
    # process is one line from the CLI, not a traceback out of the lifespan.
    runtime = Runtime(settings, capabilities=cli_capabilities, manage_heap=True)
    app = create_app(settings, token=token, hosts=names, runtime_factory=lambda _: runtime)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    shown = f"[{host}]" if ":" in host else host
    task = asyncio.ensure_future(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.05)
    if server.started:
        bound = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://{shown}:{bound}"
        announce(settings.workspace, url)
        click.echo(f"memory service for {settings.workspace.root} at {url}")
        click.echo(f"open {url}/ in a browser for the Memory tab; Ctrl-C stops it")
        link = app.state.person.login_link(url)
        click.echo(f"to confirm parked profile lines as yourself, open (once): {link}")
    try:
        await task
    finally:
        withdraw(settings.workspace)
