"""The `memory` command line: parse arguments, call one library function, print.

Every command takes `--workspace` (env `MEMORY_WORKSPACE`, default
`./workspace`). A `MemoryServiceError` anywhere below becomes one line on
stderr and the error's exit code (2 for a scanner rejection, else 1).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ingest import (
    DirectorySource,
    IngestOptions,
    IngestReport,
    ManifestSource,
    PageResult,
    Source,
    StagedPage,
)
from ingest import run as run_ingest
from injector import Injector
from service.client import ServiceClient
from service.discovery import is_loopback, running_service
from service.settings_loader import build_settings, service_token
from substrate import (
    Capability,
    InvalidInputError,
    LockHeldError,
    MaintainReport,
    MemoryServiceError,
    SearchIndex,
    Settings,
    collect_stats,
    entry_json,
    init_workspace,
    iso_utc,
    load_page_index,
    migrate_config,
    open_search_index,
    open_workspace,
    read_buffer,
    remember,
)
from substrate.pages import decode_page


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemoryServiceError as exc:
            click.echo(f"error: {exc.message}", err=True)
            ctx.exit(exc.exit_code)


workspace_option = click.option(
    "--workspace",
    "workspace",
    type=click.Path(path_type=Path, file_okay=True, dir_okay=True),
    envvar="MEMORY_WORKSPACE",
    default=Path("workspace"),
    show_default=True,
    help="Workspace folder (env MEMORY_WORKSPACE).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
url_option = click.option(
    "--url",
    envvar="MEMORY_URL",
    metavar="URL",
    help="Use the memory service at URL (env MEMORY_URL). Default: the workspace's own "
    "service when `memory serve` runs, else the workspace directly.",
)


def _service(workspace: Path, url: str | None) -> ServiceClient | None:
    """A client for the service that owns this workspace's index, if one runs."""
    if not url:
        found = running_service(open_workspace(workspace))
        url = found.url if found else None
    if url is None:
        return None
    client = ServiceClient(url, service_token())
    click.get_current_context().call_on_close(client.close)  # its pooled connections
    return client


def _print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@click.group(cls=_Group)
@click.version_option(package_name="memory-substrate")
def cli() -> None:
    """Memory service for AI assistants: concept pages, buffer, retrieval."""


@cli.command()
@workspace_option
def init(workspace: Path) -> None:
    """Create a workspace (config.toml, memory/, .substrate/); keeps existing files."""
    created = init_workspace(workspace)
    open_workspace(workspace)
    for path in created:
        click.echo(f"created {path}")
    click.echo(f"workspace ready at {workspace}" + ("" if created else " (nothing to create)"))


@cli.command()
@workspace_option
@json_option
def validate(workspace: Path, as_json: bool) -> None:
    """Report pages that fail to parse and links to missing pages; exit 1 if any."""
    index = load_page_index(build_settings(workspace).workspace)
    failures = [{"slug": f.slug, "path": f.path, "error": f.error} for f in index.parse_failures]
    dangling = [{"from": d.source, "to": d.target, "via": d.via} for d in index.dangling_links]
    if as_json:
        _print_json({"pages": len(index), "parse_failures": failures, "dangling_links": dangling})
    else:
        for f in failures:
            click.echo(f"parse failure  {f['path']}: {f['error']}")
        for d in dangling:
            click.echo(f"dangling link  {d['from']} -> {d['to']} (via {d['via']})")
        click.echo(
            f"{len(index)} pages, {len(failures)} parse failures, {len(dangling)} dangling links"
        )
    if failures or dangling:
        sys.exit(1)


@cli.command()
@workspace_option
@json_option
def pages(workspace: Path, as_json: bool) -> None:
    """List the PageIndex: one entry per concept page."""
    index = load_page_index(build_settings(workspace).workspace)
    rows = [entry_json(e) for e in index.entries.values()]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        click.echo(f"{row['slug']}\t{row['title']}\t{row['fresh_at']}\t{len(row['links'])} links")
    click.echo(f"{len(rows)} pages")


@cli.command("remember")
@workspace_option
@url_option
@click.argument("text")
@click.option(
    "--hint", "hints", multiple=True, metavar="SLUG", help="Page the fact belongs to (repeatable)."
)
def remember_command(workspace: Path, url: str | None, text: str, hints: tuple[str, ...]) -> None:
    """Save a fact to the intake buffer and today's archive; prints its id."""
    client = _service(workspace, url)
    if client is not None:
        click.echo(client.post("/v1/memory/remember", {"text": text, "hints": list(hints)})["id"])
        return
    entry = remember(build_settings(workspace), text, list(hints))
    click.echo(entry.id)


@cli.command()
@workspace_option
@json_option
def buffer(workspace: Path, as_json: bool) -> None:
    """List the entries waiting in the intake buffer."""
    entries = read_buffer(build_settings(workspace))
    rows = [{"id": e.id, "at": iso_utc(e.at), "text": e.text, "hints": e.hints} for e in entries]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        first_line = str(row["text"]).split("\n", 1)[0]
        click.echo(f"{row['id']}  {row['at']}  {first_line}")
    click.echo(f"{len(rows)} entries")


@cli.command()
@workspace_option
@json_option
def stats(workspace: Path, as_json: bool) -> None:
    """Tier, graph support and corpus counts."""
    figures = collect_stats(build_settings(workspace)).as_json()
    if as_json:
        _print_json(figures)
        return
    for key, value in figures.items():
        click.echo(f"{key}: {json.dumps(value)}")


@cli.group()
def config() -> None:
    """Workspace configuration."""


@config.command()
@workspace_option
def migrate(workspace: Path) -> None:
    """Copy explicitly set, non-default memory.v2 tunables into memory.substrate."""
    settings: Settings = build_settings(workspace)
    copied = migrate_config(settings.workspace.config_path)
    for key in copied:
        click.echo(f"set {key}")
    click.echo(f"{len(copied)} keys migrated")


def cli_capabilities() -> list[Capability]:
    """Every CLI command as a searchable capability entry (kind=capability, never fresh)."""
    caps = []
    for path, command in command_paths(cli):
        caps.append(
            Capability(f"capability/cli/{path.replace(' ', '-')}", path, command.help or "")
        )
    return caps


def command_paths(group: click.Group, prefix: str = "memory") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            out.extend(command_paths(command, path))
        else:
            out.append((path, command))
    return out


class _Bar:
    """A progress bar on stderr that appears only once there is work to show."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._bar: Any = None

    def __enter__(self) -> _Bar:
        return self

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def _maintained_index(workspace: Path) -> SearchIndex:
    """The search index, brought up to date with the pages first (embeds only what changed)."""
    index = open_search_index(build_settings(workspace))
    index.maintain(cli_capabilities())
    return index


@cli.command()
@workspace_option
@url_option
@json_option
@click.option(
    "--rebuild", is_flag=True, help="Drop the derived index and rebuild it from the pages."
)
def maintain(workspace: Path, url: str | None, as_json: bool, rebuild: bool) -> None:
    """Bring the search index up to date: embed changed pages, drop deleted ones."""
    client = _service(workspace, url)
    if client is not None:
        report = MaintainReport(**client.post("/v1/memory/maintain", {"rebuild": rebuild}))
    else:
        index = open_search_index(build_settings(workspace))
        try:
            with _Bar("embedding chunks") as bar:
                report = index.maintain(cli_capabilities(), rebuild=rebuild, progress=bar.update)
        finally:
            index.store.close()
    if as_json:
        _print_json(report.as_json())
        return
    click.echo(
        f"embedded {report.embedded} pages ({report.chunks} chunks), deleted {report.deleted}, "
        f"unchanged {report.unchanged}{', rebuilt' if report.rebuilt else ''} "
        f"in {report.seconds:.2f} s"
    )


@cli.command()
@workspace_option
@url_option
@json_option
@click.argument("folder", required=False, metavar="[DIR | -]")
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON manifest {"pages": [{"slug", "content" | "path"}]}; paths relative to it.',
)
@click.option("--dry-run", is_flag=True, help="Validate and report; write and index nothing.")
@click.option("--overwrite", is_flag=True, help="Replace pages that already exist.")
@click.option(
    "--source",
    "provider",
    metavar="PROVIDER",
    help="Add `source: import:PROVIDER` to pages that have no source.",
)
@click.option(
    "--batch-size", type=click.IntRange(1), default=200, show_default=True, help="Pages per batch."
)
def ingest(
    workspace: Path,
    url: str | None,
    as_json: bool,
    folder: str | None,
    manifest: Path | None,
    dry_run: bool,
    overwrite: bool,
    provider: str | None,
    batch_size: int,
) -> None:
    """Import ready-made pages from DIR (every *.md), --manifest FILE, or - (manifest on stdin).

    Each page is validated on its own; a bad page fails alone and the command
    exits 1. Written pages are embedded before the command returns."""
    if (folder is None) == (manifest is None):
        raise click.UsageError("give a DIR, - (manifest on stdin) or --manifest FILE")
    settings = build_settings(workspace)
    options = IngestOptions(
        dry_run=dry_run, overwrite=overwrite, source=provider, batch_size=batch_size
    )
    source: Source
    if manifest is not None:
        source = ManifestSource.from_file(manifest)
    elif folder == "-":
        source = ManifestSource(sys.stdin.read(), Path.cwd(), "stdin")
    else:
        source = DirectorySource(Path(str(folder)))
    client = _service(workspace, url)
    indexed = None
    if client is not None:
        report, indexed = _ingest_via(client, settings, source, options)
    else:
        with _Bar("ingesting pages") as bar:
            report = run_ingest(settings, source, options, progress=bar.update)
    if report.written and client is None:
        index = open_search_index(settings)
        try:
            with _Bar("embedding chunks") as bar:
                indexed = index.maintain(cli_capabilities(), progress=bar.update)
        finally:
            index.store.close()
    if as_json:
        _print_json({**report.as_json(), "index": indexed.as_json() if indexed else None})
    else:
        _print_ingest(report, indexed)
    if report.failed:
        sys.exit(1)


def _ingest_via(
    client: ServiceClient, settings: Settings, source: Source, options: IngestOptions
) -> tuple[IngestReport, MaintainReport | None]:
    """Ingest through the service: pages are read here (so a staging folder on this
    machine works against any service) and sent inline, one batch per request."""
    cap = settings.tuning.ingest_max_page_bytes
    results: list[PageResult] = []
    indexed: MaintainReport | None = None
    ready: list[tuple[StagedPage, str]] = []
    for staged in source.pages():
        try:
            if staged.read is None:
                raise InvalidInputError(staged.problem or "unreadable entry")
            ready.append((staged, decode_page(staged.read(cap))))
        except (MemoryServiceError, OSError) as exc:
            message = exc.message if isinstance(exc, MemoryServiceError) else str(exc)
            results.append(PageResult(staged.slug, staged.where, "failed", error=message))
    with _Bar("ingesting pages") as bar:
        for start in range(0, len(ready), options.batch_size):
            batch = ready[start : start + options.batch_size]
            doc = client.post(
                "/v1/memory/ingest",
                {
                    "pages": [{"slug": st.slug, "content": text} for st, text in batch],
                    "dry_run": options.dry_run,
                    "overwrite": options.overwrite,
                    "source": options.source,
                },
            )
            for (staged, _), row in zip(batch, doc["pages"], strict=True):
                results.append(PageResult(**{**row, "where": staged.where}))
            if doc.get("index"):
                indexed = MaintainReport(**doc["index"])
            bar.update(start + len(batch), len(ready))
    return IngestReport(f"{source.name} via {client.url}", options.dry_run, results), indexed


def _print_ingest(report: IngestReport, indexed: MaintainReport | None) -> None:
    for page in report.pages:
        label = page.slug or page.where
        if page.status == "failed":
            click.echo(f"failed   {label}: {page.error}  [{page.where}]", err=True)
        for warning in page.warnings:
            click.echo(f"warning  {label}: {warning}", err=True)
    totals = report.totals()
    if report.dry_run:
        done = f"{totals['would_write']} would be written"
    else:
        done = f"{totals['written']} written"
    click.echo(
        f"{'dry run: ' if report.dry_run else ''}{totals['pages']} pages from {report.source}: "
        f"{done}, {totals['skipped']} skipped, {totals['failed']} failed"
    )
    if indexed is not None:
        click.echo(
            f"indexed {indexed.embedded} pages ({indexed.chunks} chunks) in {indexed.seconds:.2f} s"
        )


@cli.command()
@workspace_option
@url_option
@json_option
@click.argument("query", required=False)
@click.option(
    "--k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="Hits to return."
)
@click.option(
    "--capabilities", is_flag=True, help="Include synthetic capability entries (CLI commands)."
)
@click.option(
    "--batch",
    is_flag=True,
    help='Read queries from stdin (text or JSON {"query", "k"}); one JSON line each.',
)
def search(
    workspace: Path,
    url: str | None,
    as_json: bool,
    query: str | None,
    k: int,
    capabilities: bool,
    batch: bool,
) -> None:
    """Hybrid (dense + BM25) search over the concept pages."""
    if batch == (query is not None):
        raise click.UsageError("give a QUERY or --batch, not both")
    client = _service(workspace, url)
    if client is not None:
        _search_via(client, query, k, capabilities, as_json)
        return
    index = _maintained_index(workspace)
    try:
        if batch:
            for line in sys.stdin:
                text, line_k = _batch_query(line, k)
                if text:
                    hits = index.search(text, line_k, include_capabilities=capabilities)
                    click.echo(
                        json.dumps(
                            {"query": text, "hits": [h.as_json() for h in hits]}, ensure_ascii=False
                        )
                    )
            return
        assert query is not None
        hits = index.search(query, k, include_capabilities=capabilities)
    finally:
        index.store.close()
    if as_json:
        _print_json([h.as_json() for h in hits])
        return
    for rank, hit in enumerate(hits, 1):
        excerpt = hit.excerpt.replace("\n", " ")
        click.echo(f"{rank:2d}. {hit.slug}  {hit.title}  ({hit.score:.4f})\n    {excerpt[:160]}")


def _search_via(
    client: ServiceClient, query: str | None, k: int, capabilities: bool, as_json: bool
) -> None:
    def ask(text: str, line_k: int) -> list[dict[str, Any]]:
        body = {"query": text, "k": line_k, "capabilities": capabilities}
        hits: list[dict[str, Any]] = client.post("/v1/memory/search", body)["hits"]
        return hits

    if query is None:
        for line in sys.stdin:
            text, line_k = _batch_query(line, k)
            if text:
                click.echo(
                    json.dumps({"query": text, "hits": ask(text, line_k)}, ensure_ascii=False)
                )
        return
    hits = ask(query, k)
    if as_json:
        _print_json(hits)
        return
    for rank, hit in enumerate(hits, 1):
        excerpt = str(hit["excerpt"]).replace("\n", " ")
        click.echo(
            f"{rank:2d}. {hit['slug']}  {hit['title']}  ({hit['score']:.4f})\n    {excerpt[:160]}"
        )


@cli.command()
@workspace_option
@url_option
@json_option
@click.argument("message", required=False)
@click.option("--conversation", "conversation_id", metavar="ID", help="Continue this conversation.")
@click.option(
    "--voice", is_flag=True, help="Voice front door: the previous turn's card, no retrieval."
)
@click.option(
    "--batch",
    is_flag=True,
    help='Messages from stdin (text, or JSON {"message", "conversation_id"}); one JSON line each.',
)
def card(
    workspace: Path,
    url: str | None,
    as_json: bool,
    message: str | None,
    conversation_id: str | None,
    voice: bool,
    batch: bool,
) -> None:
    """Print exactly what would be injected for MESSAGE: the <memory> card and <info>."""
    if batch == (message is not None):
        raise click.UsageError("give a MESSAGE or --batch, not both")
    client = _service(workspace, url)
    assemble: Callable[[str, str | None], dict[str, Any]]
    injector: Injector | None = None
    if client is not None:

        def assemble(text: str, conv: str | None) -> dict[str, Any]:
            body = {"message": text, "conversation_id": conv, "voice_front_door": voice}
            result: dict[str, Any] = client.post("/v1/memory/card", body)
            return result
    else:
        settings = build_settings(workspace)
        injector = Injector(settings, None if voice else _maintained_index(workspace))
        local = injector

        def assemble(text: str, conv: str | None) -> dict[str, Any]:
            return local.assemble(text, conv, voice_front_door=voice).as_json()

    try:
        if batch:
            for line in sys.stdin:
                text, conv = _batch_message(line)
                if text:
                    click.echo(json.dumps(assemble(text, conv), ensure_ascii=False))
            return
        assert message is not None
        blocks = assemble(message, conversation_id)
    finally:
        if injector is not None:
            injector.close()
    if as_json:
        _print_json(blocks)
        return
    shown = "\n\n".join(b for b in (blocks["memory"], blocks["info"]) if b)
    click.echo(shown or "(nothing to inject)")


@cli.command()
@workspace_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
def serve(workspace: Path, host: str, port: int) -> None:
    """Run the HTTP API, the job worker and the web Memory tab.

    Loopback is open; any other address needs a bearer token in the env
    MEMORY_SERVICE_TOKEN. While it runs, the CLI's index commands go through it."""
    import uvicorn

    from service.app import create_app
    from service.discovery import announce, withdraw
    from service.runtime import Runtime

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
    shown = f"[{host}]" if ":" in host else host

    def runtime(s: Settings) -> Runtime:
        return Runtime(s, capabilities=cli_capabilities)

    app = create_app(settings, token=token, runtime_factory=runtime)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))

    async def announced() -> None:
        task = asyncio.ensure_future(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started:
            bound = server.servers[0].sockets[0].getsockname()[1]
            url = f"http://{shown}:{bound}"
            announce(settings.workspace, url)
            click.echo(f"memory service for {settings.workspace.root} at {url}")
            click.echo(f"open {url}/ in a browser for the Memory tab; Ctrl-C stops it")
        try:
            await task
        finally:
            withdraw(settings.workspace)

    try:
        asyncio.run(announced())
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
        click.echo("memory service stopped")


def _batch_message(line: str) -> tuple[str, str | None]:
    """A plain line is its own fresh conversation; JSON may name one."""
    line = line.strip()
    if not line.startswith("{"):
        return line, None
    try:
        doc = json.loads(line)
    except ValueError:
        raise MemoryServiceError(f"--batch: not valid JSON: {line[:80]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("message"), str):
        raise MemoryServiceError('--batch: a JSON line needs a string "message"')
    conv = doc.get("conversation_id")
    if conv is not None and not isinstance(conv, str):
        raise MemoryServiceError("--batch: conversation_id must be a string")
    return doc["message"], conv


def _batch_query(line: str, default_k: int) -> tuple[str, int]:
    line = line.strip()
    if line.startswith("{"):
        try:
            doc = json.loads(line)
        except ValueError:
            raise MemoryServiceError(f"--batch: not valid JSON: {line[:80]}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("query"), str):
            raise MemoryServiceError('--batch: a JSON line needs a string "query"')
        k = doc.get("k", default_k)
        if not isinstance(k, int) or k < 1:
            raise MemoryServiceError(f"--batch: k must be a positive integer, got {k!r}")
        return doc["query"], k
    return line, default_k


def main() -> None:
    cli(prog_name="memory")
