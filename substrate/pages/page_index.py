"""The PageIndex: one entry per concept page, plus the corpus's two defects.

Built by scanning `memory/concepts/**.md` and cached in
`.substrate/page-index.json`. A refresh re-reads only files whose mtime or
size changed since the cache was written, so an unchanged corpus costs one
directory walk and one JSON load. Page bodies are not kept: readers that need
text read the file.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from substrate.config.cpus import usable_cpus
from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError
from substrate.pages.page_file import (
    Link,
    PageMeta,
    iso_utc,
    link_key,
    meta_of,
    parse_page,
    read_page_file,
)
from substrate.pages.slugs import slug_problem
from substrate.safety.inputs import printable
from substrate.safety.safe_files import MAX_FILE_BYTES, read_regular_file, write_atomic

CACHE_VERSION = 4
# Changed pages a scan takes before the cache file is rewritten (fewer are kept
# in this process only: see `_remember_newer`).
REWRITE_AFTER = 32
PARALLEL_THRESHOLD = 500


@dataclass(frozen=True, slots=True, kw_only=True)
class PageEntry(PageMeta):
    path: str
    fresh_at: datetime | None
    modified_at: datetime

    def link_targets(self) -> list[str]:
        return list(dict.fromkeys(link.target for link in self.links))


@dataclass(frozen=True, slots=True)
class ParseFailure:
    slug: str
    path: str
    error: str


@dataclass(frozen=True, slots=True)
class DanglingLink:
    source: str
    target: str
    via: str


@dataclass(frozen=True)
class PageIndex:
    entries: dict[str, PageEntry]
    parse_failures: tuple[ParseFailure, ...]
    dangling_links: tuple[DanglingLink, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, slug: str) -> PageEntry | None:
        return self.entries.get(slug)

    @cached_property
    def core_slugs(self) -> tuple[str, ...]:
        """Pages marked `core: true`, sorted; computed once per index, not once per turn."""
        return tuple(sorted(slug for slug, entry in self.entries.items() if entry.core))


@dataclass(frozen=True, slots=True)
class Scanned:
    mtime_ns: int
    size: int
    entry: PageEntry | None
    failure: ParseFailure | None


def walk_pages(
    concepts_dir: Path, folders: dict[str, int] | None = None, start: str = ""
) -> Iterator[tuple[str, os.stat_result]]:
    """(relative posix path, stat) of every `*.md` file, skipping hidden files and folders.

    Works on strings rather than `Path` objects: on an unchanged corpus this
    walk is most of the rescan, and pathlib parsing would dominate it.
    """
    stack = [start]
    base = str(concepts_dir)
    while stack:
        for rel, item in list_folder(base, stack.pop(), folders):
            if is_folder(item):
                stack.append(rel)
            elif is_listed(item):
                yield rel, item.stat(follow_symlinks=False)


def list_folder(
    base: str, rel_folder: str, folders: dict[str, int] | None
) -> list[tuple[str, os.DirEntry[str]]]:
    """(relative posix path, entry) of a folder's items, hidden ones skipped; none
    when the folder is gone. When `folders` is given it receives the folder's
    mtime, taken before listing, so a change made meanwhile shows up later."""
    path = os.path.join(base, rel_folder) if rel_folder else base
    try:
        if folders is not None:
            folders[rel_folder] = os.stat(path).st_mtime_ns
        items = list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [
        (f"{rel_folder}/{item.name}" if rel_folder else item.name, item)
        for item in items
        if not item.name.startswith(".")
    ]


def is_page(item: os.DirEntry[str]) -> bool:
    """A page file, or a link named like one (reported as a parse failure: links
    are never followed, since one could point out of the workspace)."""
    return item.name.endswith(".md") and (item.is_symlink() or item.is_file())


def is_folder(item: os.DirEntry[str]) -> bool:
    """A real folder to walk into; a link to a folder is not followed."""
    return item.is_dir(follow_symlinks=False)


def is_listed(item: os.DirEntry[str]) -> bool:
    """What a scan records: pages, and links to folders (as failures, so
    `memory validate` says why their pages are not there)."""
    return is_page(item) or (item.is_symlink() and item.is_dir())


LINKED_FOLDER = "a link to a folder: not followed (it could point out of the workspace)"


def _scan_file(concepts_dir: str, rel: str, mtime_ns: int, size: int) -> Scanned:
    if not rel.endswith(".md"):
        failure = ParseFailure(printable(rel), printable(rel) + "/", LINKED_FOLDER)
        return Scanned(mtime_ns, size, None, failure)
    slug = rel.removesuffix(".md")
    problem = slug_problem(slug)
    if problem is not None:
        failure = ParseFailure(printable(slug), printable(rel), f"bad slug: {problem}")
        return Scanned(mtime_ns, size, None, failure)
    mtime = datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC)
    try:
        data = read_page_file(Path(concepts_dir, rel))
        page = parse_page(slug, data, mtime)
    except InvalidInputError as exc:  # a parse error, a FIFO, a file over the cap
        return Scanned(mtime_ns, size, None, ParseFailure(slug, rel, exc.message))
    except FileNotFoundError:
        return Scanned(mtime_ns, size, None, ParseFailure(slug, rel, "deleted while scanning"))
    entry = PageEntry(**meta_of(page), path=rel, fresh_at=page.fresh_at, modified_at=mtime)
    return Scanned(mtime_ns, size, entry, None)


def _scan_job(job: tuple[str, str, int, int]) -> Scanned:
    return _scan_file(*job)


def scan_all(jobs: list[tuple[str, str, int, int]]) -> list[Scanned]:
    """Parse changed files; a large batch (a first scan) is spread over the cores,
    since YAML parsing is CPU-bound and a fork costs far less than 10k parses.
    Only a single-threaded process forks: a child of the service could inherit
    a lock some other thread held at the fork and never get it back."""
    workers = min(usable_cpus(), 4)
    if len(jobs) < PARALLEL_THRESHOLD or workers < 2 or threading.active_count() > 1:
        return [_scan_file(*job) for job in jobs]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_scan_job, jobs, chunksize=256))


def page_entries(workspace: Workspace, slugs: Iterable[str]) -> dict[str, PageEntry | None]:
    """These pages' entries read from their files alone (None: gone, or not a page
    that parses): what a change that wrote only them needs, without a walk of
    every page."""
    concepts = str(workspace.concepts_dir)
    out: dict[str, PageEntry | None] = {}
    for slug in slugs:
        rel = f"{slug}.md"
        try:
            st = os.stat(os.path.join(concepts, rel), follow_symlinks=False)
        except OSError:
            out[slug] = None
            continue
        out[slug] = _scan_file(concepts, rel, st.st_mtime_ns, st.st_size).entry
    return out


def load_page_index(workspace: Workspace) -> PageIndex:
    """Scan the concepts folder, reusing cached entries for unchanged files."""
    return assemble(rescan(workspace, read_cache(workspace.page_index_path), None))


def rescan(
    workspace: Workspace,
    cached: dict[str, Scanned],
    folders: dict[str, int] | None,
    inodes: dict[str, int] | None = None,
    *,
    write_cache: bool = True,
) -> dict[str, Scanned]:
    scanned: dict[str, Scanned] = {}
    jobs: list[tuple[str, str, int, int]] = []
    concepts = str(workspace.concepts_dir)
    for rel, st in walk_pages(workspace.concepts_dir, folders):
        if inodes is not None:
            inodes[rel] = st.st_ino
        hit = cached.get(rel)
        if hit is not None and hit.mtime_ns == st.st_mtime_ns and hit.size == st.st_size:
            scanned[rel] = hit
        else:
            jobs.append((concepts, rel, st.st_mtime_ns, st.st_size))
    for job, result in zip(jobs, scan_all(jobs), strict=True):
        scanned[job[1]] = result
    if write_cache and (len(jobs) >= REWRITE_AFTER or set(cached) != set(scanned)):
        _write_cache(workspace.page_index_path, scanned)
    elif write_cache and jobs:
        _remember_newer(workspace.page_index_path, scanned)
    return scanned


def _remember_newer(path: Path, scanned: dict[str, Scanned]) -> None:
    """A few pages changed (a forget, a correction): the file keeps its older scan
    (every reader checks each entry against its file anyway, and re-reads those
    few), and this process remembers the newer one against the file as it is, so
    a change does not cost rewriting 2,000 entries."""
    seen = _identity(path)
    if seen is None:
        _write_cache(path, scanned)
        return
    with _PARSED_LOCK:
        _PARSED[path] = (seen, dict(scanned))


def assemble(scanned: dict[str, Scanned]) -> PageIndex:
    entries = {s.entry.slug: s.entry for s in sorted(scanned.values(), key=_order) if s.entry}
    failures = tuple(s.failure for s in sorted(scanned.values(), key=_order) if s.failure)
    known = {link_key(slug) for slug in [*entries, *(f.slug for f in failures)]}
    dangling = tuple(
        DanglingLink(e.slug, link.target, link.via)
        for e in entries.values()
        for link in e.links
        if link_key(link.target) not in known
    )
    return PageIndex(entries, failures, dangling)


def _order(s: Scanned) -> str:
    return s.entry.path if s.entry else s.failure.path if s.failure else ""


def read_cache(path: Path) -> dict[str, Scanned]:
    """The cached scan; anything unreadable or from another version means a full scan."""
    return _parse_cache(path)[0]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Bulk-building 10k entries creates no cycles, but would trigger many full
    GC passes over a growing heap; pausing collection makes the load linear."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def rewrite_page_cache(workspace: Workspace) -> None:
    """The cache written whole from a scan of the pages as they are now (a
    purge: no entry of an earlier scan is kept in the file)."""
    _write_cache(
        workspace.page_index_path,
        rescan(workspace, read_cache(workspace.page_index_path), None, write_cache=False),
    )


def checked_page_index(workspace: Workspace) -> tuple[PageIndex, str | None]:
    """The page index, read as `load_page_index` would but writing nothing, and
    why its cache could not be used (None when it could, or is simply absent:
    the first scan writes it)."""
    cached, problem = _parse_cache(workspace.page_index_path)
    return assemble(rescan(workspace, cached, None, write_cache=False)), problem


# The cache as this process last read or wrote it, by path, with the file's
# identity then: a tending change loads the index several times, and parsing
# 2,000 entries of JSON each time cost it ~30 ms a load. A file another
# process rewrote has another identity and is parsed again.
_PARSED: dict[Path, tuple[tuple[int, int, int], dict[str, Scanned]]] = {}
_PARSED_LOCK = threading.Lock()


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _parse_cache(path: Path) -> tuple[dict[str, Scanned], str | None]:
    """(the cached scan, why it could not be used); ({}, None) when absent."""
    seen = _identity(path)
    with _PARSED_LOCK:
        memo = _PARSED.get(path)
    if seen is not None and memo is not None and memo[0] == seen:
        return dict(memo[1]), None
    found, problem = _parse_cache_file(path)
    if seen is not None and problem is None and _identity(path) == seen:
        with _PARSED_LOCK:
            _PARSED[path] = (seen, dict(found))
    return found, problem


def _parse_cache_file(path: Path) -> tuple[dict[str, Scanned], str | None]:
    with _gc_paused():
        try:
            doc = json.loads(read_regular_file(path, MAX_FILE_BYTES))
        except FileNotFoundError:
            return {}, None
        except (OSError, ValueError, InvalidInputError) as exc:
            return {}, f"unreadable ({type(exc).__name__})"
        if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION:
            return {}, "of another version"
        try:
            return {rel: _scanned_from_json(item) for rel, item in doc["files"].items()}, None
        except (KeyError, TypeError, ValueError, AttributeError):
            return {}, "its entries do not parse"


def _write_cache(path: Path, scanned: dict[str, Scanned]) -> None:
    doc = {
        "version": CACHE_VERSION,
        "files": {rel: _scanned_to_json(s) for rel, s in scanned.items()},
    }
    try:
        write_atomic(path, json.dumps(doc, separators=(",", ":")))
    except OSError:
        # The cache is derived state: a read-only workspace still gets a correct
        # index, it just rescans next time.
        return
    written = _identity(path)
    if written is not None:
        with _PARSED_LOCK:
            _PARSED[path] = (written, dict(scanned))


def _scanned_to_json(s: Scanned) -> dict[str, Any]:
    out: dict[str, Any] = {"m": s.mtime_ns, "s": s.size}
    if s.failure:
        out["failure"] = [s.failure.slug, s.failure.path, s.failure.error]
    if s.entry:
        e = s.entry
        out["entry"] = {
            "slug": e.slug,
            "path": e.path,
            "title": e.title,
            "aliases": list(e.aliases),
            "summary": e.summary,
            "tags": list(e.tags),
            "links": [[link.target, link.via] for link in e.links],
            "core": e.core,
            "source": e.source,
            "origin_date": e.origin_date,
            "fresh_at": None if e.fresh_at is None else e.fresh_at.isoformat(),
            "modified_at": e.modified_at.isoformat(),
            "content_hash": e.content_hash,
            "filed": list(e.filed),
            "facts": e.facts,
            "sources": list(e.sources),
            "quarantine": e.quarantine,
        }
    return out


def _scanned_from_json(item: dict[str, Any]) -> Scanned:
    failure = ParseFailure(*item["failure"]) if "failure" in item else None
    entry = None
    if "entry" in item:
        e = item["entry"]
        entry = PageEntry(
            slug=e["slug"],
            path=e["path"],
            title=e["title"],
            aliases=tuple(e["aliases"]),
            summary=e["summary"],
            tags=tuple(e["tags"]),
            links=tuple(Link(t, v) for t, v in e["links"]),
            core=e["core"],
            source=e["source"],
            origin_date=e["origin_date"],
            fresh_at=None if e["fresh_at"] is None else datetime.fromisoformat(e["fresh_at"]),
            modified_at=datetime.fromisoformat(e["modified_at"]),
            content_hash=e["content_hash"],
            filed=tuple(e["filed"]),
            facts=e["facts"],
            sources=tuple(e.get("sources", ())),
            quarantine=e["quarantine"],
        )
    return Scanned(item["m"], item["s"], entry, failure)


def entry_json(entry: PageEntry) -> dict[str, Any]:
    """The public JSON shape of one entry (`memory pages --json`)."""
    return {
        "slug": entry.slug,
        "title": entry.title,
        "aliases": list(entry.aliases),
        "links": entry.link_targets(),
        "source": entry.source,
        "fresh_at": iso_utc(entry.fresh_at),
        "modified_at": iso_utc(entry.modified_at),
        "content_hash": entry.content_hash,
        "quarantine": entry.quarantine,
    }
