"""The batch writer: validate each staged page on its own, write the good ones.

The whole run holds the consolidation lock, so a batch never interleaves with
a consolidation pass (the other writer of `memory/concepts/`). Pages are
committed `batch_size` at a time, each atomically and drift-aware, with one
sync per batch rather than an fsync per page, so a killed ingest leaves every
page whole or absent.
Re-running the same ingest converges: a page whose bytes are already on disk
is `skipped` as `unchanged`, and the index follow-up embeds nothing for it.

Nothing here embeds or indexes: the composition root runs (or queues) the
re-embed and maintenance follow-ups when the report says pages were written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ingest.sources import PageTooLargeError, Source, StagedPage, text_reader
from substrate import (
    InvalidInputError,
    MemoryDisabledError,
    MemoryServiceError,
    Settings,
    load_page_index,
)
from substrate.config import is_memory_enabled
from substrate.pages import (
    decode_page,
    parse_origin_date,
    parse_page,
    path_for_slug,
    slug_problem,
    split_frontmatter,
    with_default_field,
    with_inert_body,
)
from substrate.safety import (
    PlannedWrite,
    Scanner,
    Verdict,
    hold_lock,
    printable,
    read_bytes_snapshot,
    runs,
    strip_hidden_reasoning,
    write_many_atomic,
)

Status = Literal["written", "skipped", "failed", "would_write"]
Progress = Callable[[int, int], None]
STATUSES: tuple[Status, ...] = ("written", "would_write", "skipped", "failed")
_PROVIDER = runs(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class IngestOptions:
    dry_run: bool = False
    overwrite: bool = False
    source: str | None = None
    batch_size: int = 200
    lock_timeout_s: float = 30.0
    # pages from outside (`memory ingest`): their comments are made inert, never
    # read as the product's markers; a page write or edit keeps its page format
    imported: bool = True

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise InvalidInputError(f"batch size must be at least 1, got {self.batch_size}")
        if self.source is not None and not _PROVIDER.fullmatch(self.source):
            raise InvalidInputError(
                f"source provider {self.source!r} must be 1-64 letters, digits, '.', '_' or '-'"
            )


@dataclass
class PageResult:
    slug: str
    where: str
    status: Status
    reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    scan: Verdict | None = None  # the scanner's verdict under the import policy

    def as_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "where": self.where,
            "status": self.status,
            "reason": self.reason,
            "warnings": self.warnings,
            "error": self.error,
            "scan": None if self.scan is None else self.scan.as_json(),
        }


@dataclass(frozen=True)
class IngestReport:
    source: str
    dry_run: bool
    pages: list[PageResult]

    def count(self, status: Status) -> int:
        return sum(1 for p in self.pages if p.status == status)

    @property
    def written(self) -> list[str]:
        return [p.slug for p in self.pages if p.status == "written"]

    @property
    def failed(self) -> bool:
        return any(p.status == "failed" for p in self.pages)

    def totals(self) -> dict[str, int]:
        return {"pages": len(self.pages), **{s: self.count(s) for s in STATUSES}}

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "totals": self.totals(),
            "pages": [p.as_json() for p in self.pages],
        }


@dataclass(frozen=True)
class _Prepared:
    data: bytes
    warnings: list[str]
    targets: tuple[str, ...]


def run(
    settings: Settings,
    source: Source,
    options: IngestOptions | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Import every page of `source`; one bad page never stops the batch."""
    options = options or IngestOptions()
    if not is_memory_enabled(settings.config):
        raise MemoryDisabledError("memory is disabled (memory.enabled = false); nothing ingested")
    staged = source.pages()
    ws = settings.workspace
    cap = settings.tuning.ingest_max_page_bytes
    batch_slugs = {p.slug for p in staged if p.problem is None and slug_problem(p.slug) is None}
    results: list[PageResult] = []
    targets: dict[str, tuple[str, ...]] = {}
    first_at: dict[str, str] = {}
    with _writer_lock(settings, options) as on_disk:
        known = on_disk | batch_slugs
        for start in range(0, len(staged), options.batch_size):
            planned: list[tuple[PageResult, PlannedWrite]] = []
            for item in staged[start : start + options.batch_size]:
                result, prepared = _validate(settings.scanner, item, cap, options, known, first_at)
                if prepared is not None:
                    targets[item.slug] = prepared.targets
                    write = _plan(ws.concepts_dir, item.slug, prepared.data, options, result)
                    if write is not None:
                        planned.append((result, write))
                results.append(result)
            _commit(planned)
            if progress is not None:
                progress(len(results), len(staged))
    _warn_links_to_failed(results, targets, on_disk)
    return IngestReport(source.name, options.dry_run, results)


@contextmanager
def _writer_lock(settings: Settings, options: IngestOptions) -> Iterator[set[str]]:
    """The slugs on disk, read while holding the consolidation lock (none for a dry run)."""
    ws = settings.workspace
    if options.dry_run:
        yield set(load_page_index(ws).entries)
        return
    with hold_lock(
        ws.consolidation_lock_path, timeout_s=options.lock_timeout_s, purpose="consolidation"
    ):
        yield set(load_page_index(ws).entries)


def _validate(
    scanner: Scanner,
    item: StagedPage,
    cap: int,
    options: IngestOptions,
    known: set[str],
    first_at: dict[str, str],
) -> tuple[PageResult, _Prepared | None]:
    result = PageResult(printable(item.slug), printable(item.where), "failed")
    problem = item.problem or slug_problem(item.slug)
    if problem is None and item.slug in first_at:
        problem = f"duplicate slug (first at {first_at[item.slug]})"
    if problem is not None or item.read is None:
        result.error = problem or "entry cannot be read"
        return result, None
    first_at[item.slug] = item.where
    try:
        prepared = _prepare(scanner, item.slug, item.read, cap, options, known, result)
    except (MemoryServiceError, OSError) as exc:
        result.error = exc.message if isinstance(exc, MemoryServiceError) else _os_error(exc)
        return result, None
    result.warnings = prepared.warnings
    return result, prepared


def prepare_text(
    settings: Settings, slug: str, text: str, known: set[str]
) -> tuple[bytes, list[str]]:
    """One page's bytes as ingest writes them (parsed, scanned under the import
    policy, quarantined where it must be) and its warnings; raises what ingest
    reports as a page's error. `known`: the slugs its links may name."""
    result = PageResult(slug, slug, "failed")
    cap = settings.tuning.ingest_max_page_bytes
    prepared = _prepare(
        settings.scanner,
        slug,
        text_reader(text),
        cap,
        IngestOptions(imported=False),
        known,
        result,
    )
    return prepared.data, prepared.warnings


def _prepare(
    scanner: Scanner,
    slug: str,
    read: Callable[[int], bytes],
    cap: int,
    options: IngestOptions,
    known: set[str],
    result: PageResult,
) -> _Prepared:
    data = read(cap)
    page = parse_page(slug, data, datetime.now(UTC))  # bad UTF-8 or YAML raises here
    text = decode_page(data)  # as the PageIndex reads it: a BOM is dropped, not scanned
    warnings: list[str] = []
    result.scan = verdict = scanner.check(text, "import")
    if not verdict.ok and not verdict.quarantine:
        raise verdict.rejection()
    if verdict.quarantine:
        text = _quarantined(text, page.quarantine, verdict)
        warnings.append(
            f"quarantined (scanner rule {verdict.rule!r}): stored, but shown only as quoted "
            "untrusted data and never promoted"
        )
    cleaned = strip_hidden_reasoning(text)
    if cleaned != text:
        warnings.append("hidden reasoning blocks (<think> and the like) were removed")
        text = cleaned
    if options.source is not None and page.source is None:
        text = with_default_field(text, "source", f"import:{options.source}")
    if options.imported and "<!" in text:  # an outside note's comments stay its words
        text = with_inert_body(text)
    if page.origin_date is not None and parse_origin_date(page.origin_date) is None:
        warnings.append(
            f"origin_date {page.origin_date!r} is not a date; fresh_at falls back to the file time"
        )
    link_targets = tuple(dict.fromkeys(link.target for link in page.links))
    for target in link_targets:
        if target not in known:
            warnings.append(f"link target {target!r} is neither on disk nor in the batch")
    out = text.encode("utf-8")
    if len(out) > cap:
        raise PageTooLargeError(len(out), cap)
    return _Prepared(out, warnings, link_targets)


def _quarantined(text: str, marked: str | None, verdict: Verdict) -> str:
    """The page with `quarantine: <rule>: <detail>` in its frontmatter. A page that
    already sets `quarantine` to something false is claiming a trust it cannot have."""
    if marked is not None:
        return text
    if "quarantine" in split_frontmatter(text)[0]:
        raise InvalidInputError(
            "frontmatter field 'quarantine' is set to a false value, but the scanner "
            f"quarantines this page (rule {verdict.rule!r}); remove the field"
        )
    return with_default_field(text, "quarantine", f"{verdict.rule}: {verdict.detail}")


def _plan(
    concepts: Path, slug: str, data: bytes, options: IngestOptions, result: PageResult
) -> PlannedWrite | None:
    """Decide skipped / would_write / write; a page that cannot be read fails alone."""
    path = path_for_slug(concepts, slug)
    try:
        existing, snapshot = read_bytes_snapshot(path)
    except OSError as exc:
        result.error = _os_error(exc)
        return None
    if existing == data:
        result.status, result.reason = "skipped", "unchanged"
        return None
    if existing is not None and not options.overwrite:
        result.status, result.reason = "skipped", "exists"
        return None
    if options.dry_run:
        result.status = "would_write"
        return None
    return PlannedWrite(path, data, snapshot)


def _commit(planned: list[tuple[PageResult, PlannedWrite]]) -> None:
    errors = write_many_atomic([write for _, write in planned])
    for (result, _), error in zip(planned, errors, strict=True):
        if error is None:
            result.status = "written"
        elif isinstance(error, MemoryServiceError):
            result.error = error.message
        else:
            result.error = _os_error(error) if isinstance(error, OSError) else str(error)


def _warn_links_to_failed(
    results: list[PageResult], targets: dict[str, tuple[str, ...]], on_disk: set[str]
) -> None:
    """A link to a batch page that then failed dangles after all: say so on the linking page."""
    failed = {r.slug for r in results if r.status == "failed"}
    kept = {r.slug for r in results if r.status != "failed"} | on_disk
    for result in results:
        if result.status == "failed":
            continue
        for target in targets.get(result.slug, ()):
            if target in failed and target not in kept:
                result.warnings.append(f"link target {target!r} failed in this batch")


def _os_error(exc: OSError) -> str:
    return f"{exc.strerror or exc.__class__.__name__}: {exc.filename or ''}".rstrip(": ")
