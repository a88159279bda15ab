"""The PageIndex: one entry per concept page, plus the corpus's two defects.

Built by scanning `memory/concepts/**.md` and cached in
`.substrate/page-index.json`. A refresh re-reads only files whose mtime or
size changed since the cache was written, so an unchanged corpus costs one
directory walk and one JSON load. Page bodies are not kept: readers that need
text read the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate.errors import PageParseError
from substrate.pages import Link, iso_utc, parse_page
from substrate.safe_files import write_atomic
from substrate.slugs import slug_for_path, slug_problem
from substrate.workspace import Workspace

CACHE_VERSION = 1


@dataclass(frozen=True)
class PageEntry:
    slug: str
    path: str
    title: str
    aliases: tuple[str, ...]
    summary: str | None
    tags: tuple[str, ...]
    links: tuple[Link, ...]
    core: bool
    source: str | None
    origin_date: str | None
    fresh_at: datetime | None
    modified_at: datetime
    content_hash: str

    def link_targets(self) -> list[str]:
        return list(dict.fromkeys(link.target for link in self.links))


@dataclass(frozen=True)
class ParseFailure:
    slug: str
    path: str
    error: str


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class _Scanned:
    mtime_ns: int
    size: int
    entry: PageEntry | None
    failure: ParseFailure | None


def _walk_pages(concepts_dir: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every `*.md` file under the folder, skipping hidden files and folders."""
    stack = [concepts_dir]
    while stack:
        folder = stack.pop()
        try:
            items = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        for item in items:
            if item.name.startswith("."):
                continue
            if item.is_dir():
                stack.append(Path(item.path))
            elif item.name.endswith(".md") and item.is_file():
                yield Path(item.path), item.stat()


def _scan_file(concepts_dir: Path, path: Path, st: os.stat_result) -> _Scanned:
    rel = path.relative_to(concepts_dir).as_posix()
    slug = slug_for_path(concepts_dir, path)
    problem = slug_problem(slug)
    if problem is not None:
        return _Scanned(st.st_mtime_ns, st.st_size, None, ParseFailure(slug, rel, f"bad slug: {problem}"))
    mtime = datetime.fromtimestamp(st.st_mtime_ns / 1e9, tz=UTC)
    try:
        page = parse_page(slug, path.read_bytes(), mtime)
    except PageParseError as exc:
        return _Scanned(st.st_mtime_ns, st.st_size, None, ParseFailure(slug, rel, exc.message))
    entry = PageEntry(
        slug=slug,
        path=rel,
        title=page.title,
        aliases=page.aliases,
        summary=page.summary,
        tags=page.tags,
        links=page.links,
        core=page.core,
        source=page.source,
        origin_date=page.origin_date,
        fresh_at=page.fresh_at,
        modified_at=mtime,
        content_hash=page.content_hash,
    )
    return _Scanned(st.st_mtime_ns, st.st_size, entry, None)


def load_page_index(workspace: Workspace) -> PageIndex:
    """Scan the concepts folder, reusing cached entries for unchanged files."""
    cached = _read_cache(workspace.page_index_path)
    scanned: dict[str, _Scanned] = {}
    changed = False
    concepts = workspace.concepts_dir
    for path, st in _walk_pages(concepts):
        rel = path.relative_to(concepts).as_posix()
        hit = cached.get(rel)
        if hit is not None and hit.mtime_ns == st.st_mtime_ns and hit.size == st.st_size:
            scanned[rel] = hit
        else:
            scanned[rel] = _scan_file(concepts, path, st)
            changed = True
    if changed or set(cached) != set(scanned):
        _write_cache(workspace.page_index_path, scanned)
    return _assemble(scanned)


def _assemble(scanned: dict[str, _Scanned]) -> PageIndex:
    entries = {s.entry.slug: s.entry for s in sorted(scanned.values(), key=_order) if s.entry}
    failures = tuple(s.failure for s in sorted(scanned.values(), key=_order) if s.failure)
    known = set(entries) | {f.slug for f in failures}
    dangling = tuple(
        DanglingLink(e.slug, link.target, link.via)
        for e in entries.values()
        for link in e.links
        if link.target not in known
    )
    return PageIndex(entries, failures, dangling)


def _order(s: _Scanned) -> str:
    return s.entry.path if s.entry else s.failure.path if s.failure else ""


def _read_cache(path: Path) -> dict[str, _Scanned]:
    """The cached scan; anything unreadable or from another version means a full scan."""
    try:
        doc = json.loads(path.read_bytes())
        if doc.get("version") != CACHE_VERSION:
            return {}
        return {rel: _scanned_from_json(item) for rel, item in doc["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _write_cache(path: Path, scanned: dict[str, _Scanned]) -> None:
    doc = {"version": CACHE_VERSION, "files": {rel: _scanned_to_json(s) for rel, s in scanned.items()}}
    try:
        write_atomic(path, json.dumps(doc, separators=(",", ":")))
    except OSError:
        # The cache is derived state: a read-only workspace still gets a correct
        # index, it just rescans next time.
        return


def _scanned_to_json(s: _Scanned) -> dict[str, Any]:
    out: dict[str, Any] = {"m": s.mtime_ns, "s": s.size}
    if s.failure:
        out["failure"] = [s.failure.slug, s.failure.path, s.failure.error]
    if s.entry:
        e = s.entry
        out["entry"] = {
            "slug": e.slug, "path": e.path, "title": e.title, "aliases": list(e.aliases),
            "summary": e.summary, "tags": list(e.tags),
            "links": [[link.target, link.via] for link in e.links],
            "core": e.core, "source": e.source, "origin_date": e.origin_date,
            "fresh_at": None if e.fresh_at is None else e.fresh_at.isoformat(),
            "modified_at": e.modified_at.isoformat(), "content_hash": e.content_hash,
        }
    return out


def _scanned_from_json(item: dict[str, Any]) -> _Scanned:
    failure = ParseFailure(*item["failure"]) if "failure" in item else None
    entry = None
    if "entry" in item:
        e = item["entry"]
        entry = PageEntry(
            slug=e["slug"], path=e["path"], title=e["title"], aliases=tuple(e["aliases"]),
            summary=e["summary"], tags=tuple(e["tags"]),
            links=tuple(Link(t, v) for t, v in e["links"]),
            core=e["core"], source=e["source"], origin_date=e["origin_date"],
            fresh_at=None if e["fresh_at"] is None else datetime.fromisoformat(e["fresh_at"]),
            modified_at=datetime.fromisoformat(e["modified_at"]),
            content_hash=e["content_hash"],
        )
    return _Scanned(item["m"], item["s"], entry, failure)


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
    }
