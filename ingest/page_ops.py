"""Page operations on request: write, edit, move, delete (into a trash), restore,
pin as core. What a host or a person does to one page, where ingest does a batch.

Every operation holds the consolidation lock (the other writers of
`memory/concepts/` take it too), is validated and scanned as ingest validates
a page, and writes atomically against the bytes it read, so a concurrent edit
is refused, not lost. An edit names the page's content hash (`sha256`, as
`read_page` answers it) as its precondition. A move and a delete are renames:
the page is in its old place or its new one whatever is killed when, never in
both and never torn, and each change and the history row that tells it are
one journaled change (`commit_change`): a kill leaves both or, once the next
writer rolls the journal forward, both. A move then rewrites the links to the
page in the other pages, one atomic write each; `memory doctor --fix`
finishes the links of a move that was killed midway. A
deleted page goes to `memory/trash/<stamp>/<slug>.md` and comes back with
`restore`. Each operation is recorded in the decision log (`memory history`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ingest.batch import prepare_text
from substrate import InvalidInputError, NotFoundError, Settings, StaleWriteError
from substrate.consolidation.log import commit_change, recover_changes
from substrate.pages import (
    content_hash,
    decode_page,
    load_page_index,
    path_for_slug,
    validate_slug,
    with_flag,
)
from substrate.pages.page_file import link_key, relink_wikilinks
from substrate.safety import (
    IGNORECASE,
    FileSnapshot,
    escape,
    hold_lock,
    journal,
    linear,
    read_bytes_snapshot,
    unlinked_folder,
    write_atomic,
)

LOCK_TIMEOUT_S = 30.0
TRASH = "trash"
STAMP = "%Y%m%dT%H%M%S%fZ"


@dataclass(frozen=True)
class Edit:
    """Replace `old` (it must occur exactly once) with `new`; or the body of the
    section under the heading `section` (up to the next heading of its level or
    above) with `new`."""

    new: str
    old: str | None = None
    section: str | None = None

    def __post_init__(self) -> None:
        if (self.old is None) == (self.section is None):
            raise InvalidInputError("an edit names either `old` (a span) or `section` (a heading)")
        if self.old is not None and not self.old:
            raise InvalidInputError("`old` is empty: name the text to replace")

    def applied(self, text: str, slug: str) -> str:
        if self.old is not None:
            count = text.count(self.old)
            if count != 1:
                where = "does not occur" if count == 0 else f"occurs {count} times"
                raise InvalidInputError(f"page {slug}: the text to replace {where}")
            return text.replace(self.old, self.new, 1)
        return _with_section(text, self.section or "", self.new, slug)


def read_page(settings: Settings, slug: str) -> dict[str, Any]:
    """A page's text and content hash (an edit's precondition)."""
    data = _existing(settings, slug)[1]
    return {"slug": slug, "content": decode_page(data), "sha256": content_hash(data)}


def write_page(
    settings: Settings,
    slug: str,
    content: str,
    overwrite: bool = False,
    expected_sha256: str | None = None,
) -> dict[str, Any]:
    """Create a page, or replace it (`overwrite`, optionally only if it still has
    `expected_sha256`)."""
    validate_slug(slug)
    with _lock(settings):
        path = path_for_slug(settings.workspace.concepts_dir, slug)
        existing, snapshot = read_bytes_snapshot(path)
        if existing is not None and not overwrite:
            raise InvalidInputError(f"page {slug} exists; replace it with overwrite")
        _check(slug, existing, expected_sha256)
        data, warnings = prepare_text(settings, slug, content, _known(settings, slug))
        op = "write_page" if existing is None else "replace_page"
        steps = [] if data == existing else [journal.Replace(path, data, snapshot)]
        return _done(settings, op, slug, data, warnings, steps)


def edit_page(settings: Settings, slug: str, expected_sha256: str, edit: Edit) -> dict[str, Any]:
    """Replace a span or a section of a page that still has `expected_sha256`."""
    with _lock(settings):
        path, existing, snapshot = _existing(settings, slug)
        _check(slug, existing, expected_sha256)
        text = edit.applied(decode_page(existing), slug)
        data, warnings = prepare_text(settings, slug, text, _known(settings, slug))
        steps: list[journal.Step] = [journal.Replace(path, data, snapshot)]
        return _done(settings, "edit_page", slug, data, warnings, steps)


def pin_page(settings: Settings, slug: str, core: bool) -> dict[str, Any]:
    """Mark a page as core (always on the card's core lane), or not."""
    with _lock(settings):
        path, existing, snapshot = _existing(settings, slug)
        text = with_flag(decode_page(existing), "core", core)
        data = text.encode("utf-8")
        steps = [] if data == existing else [journal.Replace(path, data, snapshot)]
        return _done(settings, "pin" if core else "unpin", slug, data, [], steps)


def move_page(settings: Settings, slug: str, to: str) -> dict[str, Any]:
    """Rename a page's slug and rewrite the links to it in every other page."""
    validate_slug(to)
    if to == slug:
        raise InvalidInputError(f"page {slug} already has that slug")
    concepts = settings.workspace.concepts_dir
    with _lock(settings):
        path, data, _ = _existing(settings, slug)
        target = path_for_slug(concepts, to)
        if target.exists() or to in load_page_index(settings.workspace).entries:
            raise InvalidInputError(f"cannot move {slug} to {to}: that page exists")
        at = datetime.now(UTC)
        row = {"at": at.timestamp(), "op": "move_page", "from": slug, "to": to}
        # the page is in one place or the other, and the history says which
        commit_change(
            settings, [journal.Rename(path, target)], [{**row, "sha256": content_hash(data)}]
        )
        relinked = relink(settings, slug, to)
    return {"op": "move_page", "from": slug, "to": to, "relinked": relinked}


def relink(settings: Settings, old: str, new: str) -> list[str]:
    """Rewrite `[[old]]` links (and frontmatter link lists naming `old`) to `new`
    in every page; the pages changed. A page edited meanwhile is left to the
    next run (`memory doctor --fix` repeats it)."""
    changed = []
    index = load_page_index(settings.workspace)
    for slug, entry in sorted(index.entries.items()):
        if link_key(old) not in {link_key(t) for t in entry.link_targets()}:
            continue
        path = settings.workspace.concepts_dir / entry.path
        data, snapshot = read_bytes_snapshot(path)
        if data is None:
            continue
        text = decode_page(data)
        updated = relinked_text(text, old, new)
        if updated != text:
            try:
                write_atomic(path, updated, expected=snapshot)
            except StaleWriteError:
                continue
            changed.append(slug)
    return changed


def relinked_text(text: str, old: str, new: str) -> str:
    """`text` with every link to `old` pointing at `new`, in each form the page
    format reads: wikilinks (`[[old]]`, `[[old|label]]`, `[[old#part]]`, in any
    case and with spaces inside the brackets: whatever the reader resolves to
    `old`, found by the reader's own pattern) and the frontmatter's `links:`
    and `edges:` (`to:`) values, in block or flow lists, quoted or not, in any
    case."""
    text = relink_wikilinks(text, old, new)
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text
    in_links = False
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            break
        key = line.split(":", 1)[0] if not line.startswith((" ", "-", "\t")) else None
        if key is not None:
            in_links = key.strip() in LINK_KEYS
        if in_links:
            lines[i] = _relinked_yaml(line, old, new)
    return "\n".join(lines)


LINK_KEYS = ("links", "edges")


def _relinked_yaml(line: str, old: str, new: str) -> str:
    """`old` replaced where it stands as a whole YAML scalar: between list or map
    delimiters, quotes or spaces, never inside a longer slug."""
    pattern = linear(r"(^|[\s\[,{:\"'])" + escape(old) + r"($|[\s\],}\"'#])", IGNORECASE)
    for _ in range(2):  # adjacent items share a delimiter: a second pass takes the rest
        line = pattern.sub(lambda m: f"{m.group(1)}{new}{m.group(2)}", line)
    return line


def delete_page(settings: Settings, slug: str) -> dict[str, Any]:
    """Move a page into the trash; `restore_page` brings it back."""
    with _lock(settings):
        path, _, _ = _existing(settings, slug)
        stamp = datetime.now(UTC).strftime(STAMP)
        name = f"{stamp}/{slug}"
        target = _trash(settings) / f"{name}.md"
        row = {"at": datetime.now(UTC).timestamp(), "op": "delete_page", "page": slug}
        commit_change(settings, [journal.Rename(path, target)], [{**row, "trash": name}])
    return {"op": "delete_page", "page": slug, "trash": name}


def trash(settings: Settings) -> list[dict[str, Any]]:
    """The deleted pages, newest first: `name` (what `restore` takes) and slug."""
    root = _trash(settings)
    if not root.is_dir():
        return []
    found = []
    for file in root.rglob("*.md"):
        rel = file.relative_to(root).with_suffix("").as_posix()
        stamp, _, slug = rel.partition("/")
        try:
            when = datetime.strptime(stamp, STAMP).replace(tzinfo=UTC).isoformat()
        except ValueError:
            continue
        found.append({"name": rel, "page": slug, "deleted_at": when})
    return sorted(found, key=lambda t: t["name"], reverse=True)


def restore_page(settings: Settings, name: str) -> dict[str, Any]:
    """Bring a deleted page back: `name` as `trash` lists it, or a slug (its newest deletion)."""
    listed = trash(settings)
    chosen = next((t for t in listed if t["name"] == name), None)
    chosen = chosen or next((t for t in listed if t["page"] == name), None)
    if chosen is None:
        raise NotFoundError(f"no deleted page {name!r} in memory/{TRASH}/")
    slug = chosen["page"]
    with _lock(settings):
        target = path_for_slug(settings.workspace.concepts_dir, slug)
        if target.exists():
            raise InvalidInputError(f"cannot restore {slug}: a page with that slug exists")
        source = _trash(settings) / f"{chosen['name']}.md"
        unlinked_folder(_trash(settings), source.parent)
        if not stat.S_ISREG(os.lstat(source).st_mode):  # checked before anything moves
            raise InvalidInputError(
                f"cannot restore {slug}: memory/{TRASH}/{chosen['name']}.md is not a regular file"
            )
        sha = content_hash(read_bytes_snapshot(source)[0] or b"")
        row = {"at": datetime.now(UTC).timestamp(), "op": "restore_page", "page": slug}
        row |= {"sha256": sha, "trash": chosen["name"]}
        commit_change(settings, [journal.Rename(source, target)], [row])
        _prune(source.parent, _trash(settings))
    return {"op": "restore_page", "page": slug, "trash": chosen["name"]}


def _with_section(text: str, heading: str, body: str, slug: str) -> str:
    wanted = heading.strip().lstrip("#").strip().casefold()
    lines = text.split("\n")
    found = [
        i for i, line in enumerate(lines) if _level(line) and _title(line).casefold() == wanted
    ]
    if len(found) != 1:
        where = "no heading" if not found else f"{len(found)} headings"
        raise InvalidInputError(f"page {slug}: {where} named {heading.strip()!r}")
    start = found[0]
    level = _level(lines[start])
    end = next(
        (i for i in range(start + 1, len(lines)) if 0 < _level(lines[i]) <= level), len(lines)
    )
    new = body.strip("\n").split("\n") if body.strip() else []
    tail = [""] if end < len(lines) else []
    return "\n".join([*lines[: start + 1], *new, *tail, *lines[end:]])


def _level(line: str) -> int:
    hashes = len(line) - len(line.lstrip("#"))
    return hashes if 0 < hashes <= 6 and line[hashes : hashes + 1] == " " else 0


def _title(line: str) -> str:
    return line.lstrip("#").strip()


def _existing(settings: Settings, slug: str) -> tuple[Path, bytes, FileSnapshot]:
    validate_slug(slug)
    path = path_for_slug(settings.workspace.concepts_dir, slug)
    data, snapshot = read_bytes_snapshot(path)
    if data is None:
        raise NotFoundError(f"no concept page {slug!r}")
    return path, data, snapshot


def _check(slug: str, existing: bytes | None, expected: str | None) -> None:
    if expected is None:
        return
    have = content_hash(existing) if existing is not None else None
    if have != expected:
        raise StaleWriteError(
            f"page {slug} changed since it was read (sha256 {expected[:12]}…, now "
            f"{have[:12] + '…' if have else 'absent'}): read it again and redo the edit"
        )


def _known(settings: Settings, slug: str) -> set[str]:
    return {*load_page_index(settings.workspace).entries, slug}


@contextmanager
def _lock(settings: Settings) -> Iterator[None]:
    """The consolidation lock, a change a killed writer left half made finished first."""
    with hold_lock(
        settings.workspace.consolidation_lock_path, timeout_s=LOCK_TIMEOUT_S, purpose="page edit"
    ):
        recover_changes(settings)
        yield


def _trash(settings: Settings) -> Path:
    memory = settings.workspace.memory_dir
    return unlinked_folder(memory, memory / TRASH)


def _prune(folder: Path, root: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _done(
    settings: Settings,
    op: str,
    slug: str,
    data: bytes,
    warnings: list[str],
    steps: Sequence[journal.Step],
) -> dict[str, Any]:
    """Write the page (`steps`) and its history row as one journaled change."""
    sha = content_hash(data)
    row = {"at": datetime.now(UTC).timestamp(), "op": op, "page": slug, "sha256": sha}
    commit_change(settings, steps, [row])
    return {"op": op, "page": slug, "sha256": sha, "warnings": warnings}
