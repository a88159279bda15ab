"""Where staged pages come from: a folder of `*.md` files or a JSON manifest.

A source lists its pages up front (slug, where it came from, how to read it)
so the batch knows every slug it carries before it validates the first page:
a link to a page later in the same batch is not dangling. Reading is deferred
and capped, so a stray huge file is refused without being loaded. A defect in
one manifest entry becomes that page's error; only a source that cannot be
read at all (missing folder, manifest that is not JSON) fails the whole run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from substrate import InvalidInputError, TooLargeError
from substrate.safety import read_regular_file

Reader = Callable[[int], bytes]


CAP_KEY = "memory.substrate.ingest_max_page_bytes"
MANIFEST_MAX_BYTES = 256 * 1024 * 1024  # pages inline: 1,000 of them at the page cap


class PageTooLargeError(TooLargeError):
    def __init__(self, size: int, cap: int) -> None:
        super().__init__(f"page is {size} bytes, over the cap of {cap} ({CAP_KEY})")


@dataclass(frozen=True)
class StagedPage:
    """One page as the source holds it; `problem` is set when the entry itself is broken."""

    slug: str
    where: str
    read: Reader | None
    problem: str | None = None


class Source(Protocol):
    @property
    def name(self) -> str: ...

    def pages(self) -> list[StagedPage]: ...


def _file_reader(path: Path) -> Reader:
    """Only a regular file is read, and at most `cap + 1` bytes of it: a FIFO or a
    link to a device fails that page instead of hanging the batch."""

    def read(cap: int) -> bytes:
        try:
            return read_regular_file(path, cap)
        except TooLargeError:
            raise PageTooLargeError(path.stat().st_size, cap) from None

    return read


def text_reader(text: str) -> Reader:
    def read(cap: int) -> bytes:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInputError(
                f"content is not valid UTF-8 text (a lone surrogate at character {exc.start})"
            ) from None
        if len(data) > cap:
            raise PageTooLargeError(len(data), cap)
        return data

    return read


@dataclass(frozen=True)
class DirectorySource:
    """Every `*.md` under `root` (hidden files and folders skipped); slug = path without `.md`."""

    root: Path

    @property
    def name(self) -> str:
        return str(self.root)

    def pages(self) -> list[StagedPage]:
        if not self.root.is_dir():
            raise InvalidInputError(f"{self.root}: not a folder")
        found: list[StagedPage] = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith(".") or not name.endswith(".md"):
                    continue
                path = Path(folder, name)
                rel = path.relative_to(self.root).as_posix()
                found.append(StagedPage(rel.removesuffix(".md"), rel, _file_reader(path)))
        return found


@dataclass(frozen=True)
class ManifestSource:
    """`{"pages": [{"slug", "content"} | {"slug", "path"}]}`; paths relative to `base`."""

    text: str
    base: Path
    label: str

    @classmethod
    def from_file(cls, path: Path) -> ManifestSource:
        try:
            text = read_regular_file(path, MANIFEST_MAX_BYTES).decode("utf-8")
        except FileNotFoundError:
            raise InvalidInputError(f"{path}: no such manifest") from None
        except (OSError, UnicodeDecodeError, InvalidInputError) as exc:
            reason = exc.message if isinstance(exc, InvalidInputError) else str(exc)
            raise InvalidInputError(f"{path}: cannot read the manifest: {reason}") from None
        return cls(text, path.parent, str(path))

    @property
    def name(self) -> str:
        return self.label

    def pages(self) -> list[StagedPage]:
        try:
            doc = json.loads(self.text)
        except ValueError as exc:
            raise InvalidInputError(f"{self.label}: not valid JSON: {exc}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("pages"), list):
            raise InvalidInputError(f'{self.label}: expected an object with a "pages" list')
        return [self._entry(i, item) for i, item in enumerate(doc["pages"])]

    def _entry(self, i: int, item: Any) -> StagedPage:
        where = f"{self.label}: pages[{i}]"
        if not isinstance(item, dict):
            return StagedPage("", where, None, "entry is not an object")
        slug = item.get("slug")
        if not isinstance(slug, str):
            return StagedPage("", where, None, 'entry needs a string "slug"')
        has_content, has_path = "content" in item, "path" in item
        if has_content == has_path:
            return StagedPage(slug, where, None, 'entry needs exactly one of "content" or "path"')
        unknown = sorted(set(item) - {"slug", "content", "path"})
        if unknown:
            return StagedPage(slug, where, None, f"unknown keys: {', '.join(unknown)}")
        if has_content:
            if not isinstance(item["content"], str):
                return StagedPage(slug, where, None, '"content" must be a string')
            return StagedPage(slug, where, text_reader(item["content"]))
        if not isinstance(item["path"], str) or not item["path"]:
            return StagedPage(slug, where, None, '"path" must be a non-empty string')
        path = self.base / item["path"]
        return StagedPage(slug, f"{where} ({path})", _file_reader(path))


@dataclass(frozen=True)
class InlineSource:
    """Pages given inline, as `(slug, content)` (the HTTP API). Content only: a
    client of the service never names files on the service's disk."""

    items: tuple[tuple[str, str], ...]
    label: str = "request"

    @property
    def name(self) -> str:
        return self.label

    def pages(self) -> list[StagedPage]:
        return [
            StagedPage(slug, f"{self.label}: pages[{i}]", text_reader(content))
            for i, (slug, content) in enumerate(self.items)
        ]
