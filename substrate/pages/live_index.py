"""`LivePageIndex`: the PageIndex held in memory by a long-lived reader."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable

from substrate.config.workspace import Workspace
from substrate.pages.page_index import (
    PageEntry,
    PageIndex,
    Scanned,
    assemble,
    is_folder,
    is_listed,
    list_folder,
    read_cache,
    rescan,
    scan_all,
    walk_pages,
)

RESCAN_SPACING = 50
# A folder changed this recently when it was scanned may change again within the
# filesystem's timestamp granularity (a few ms) without its mtime moving: it is
# listed again at the next refresh whatever its mtime says.
SETTLE_NS = 50_000_000


class LivePageIndex:
    """The PageIndex held in memory by a long-lived reader (the injector, the service).

    A per-turn rescan of 10,000 pages costs a JSON load and 10,000 stats, far
    over a turn's budget. Every writer of pages replaces files by rename, and
    a create, rename or delete changes the mtime of the folder it happens in,
    so `current()` stats only the folders it saw last time and re-lists just
    the ones that changed; within a re-listed folder a file whose inode
    (free from the listing) is unchanged is not even stat'ed, so a folder of
    10,000 pages that gained one costs one listing and one parse. An editor
    that rewrites a file in place leaves its folder and inode alone; a full
    rescan every `max_age_s` catches that, spaced further apart when a rescan
    is slow (at least `RESCAN_SPACING` times its own duration).

    Under many threads (the service) one turn refreshes while the others go
    on with the index they had, and `min_interval_s` spaces refreshes while
    a bulk import keeps changing folders, so a 1,000-page ingest does not
    make every turn rebuild the index. `refresh()` waits for a refresh: an
    in-process writer calls it once its pages are written.
    """

    def __init__(
        self,
        workspace: Workspace,
        max_age_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        min_interval_s: float = 0.0,
    ) -> None:
        self._workspace = workspace
        self._max_age_s = max_age_s
        self._min_interval_s = min_interval_s
        self._clock = clock
        self._refreshing = threading.Lock()
        self._scanned: dict[str, Scanned] = {}
        self._inodes: dict[str, int] = {}
        self._folders: dict[str, int] = {}
        self._index: PageIndex | None = None
        self._next_full = 0.0
        self._checked = -math.inf
        self._scanned_at_ns = 0  # the wall clock when the folders' mtimes were read
        self._stale = False  # `_scanned` moved since `_index` was assembled
        self._children: dict[str, set[str]] = {}  # folder -> the page paths scanned in it
        self._entries: dict[str, PageEntry] | None = None  # slug -> entry, while unchanged

    def current(self) -> PageIndex:
        index = self._index
        if index is not None and self._clock() < self._checked + self._min_interval_s:
            return index
        if index is None:
            return self.refresh()
        if not self._refreshing.acquire(blocking=False):
            return index  # another thread is refreshing: this turn keeps the index it had
        try:
            self._refresh_locked()
        finally:
            self._refreshing.release()
        assert self._index is not None
        return self._index

    @property
    def latest(self) -> PageIndex | None:
        """The newest index built, without checking the disk."""
        return self._index

    def refresh(self, full: bool = False) -> PageIndex:
        """Bring the index up to date now, waiting for a refresh in progress."""
        with self._refreshing:
            self._refresh_locked(full)
        assert self._index is not None
        return self._index

    def entries(self, wait: bool = True) -> dict[str, PageEntry]:
        """Every page's entry as on disk now (slug -> entry), without assembling
        an index: a writer that only looks pages up pays for the folders that
        changed, not for ordering every page and its links again. `wait` False:
        while another thread refreshes, the entries it last had (a look that
        must not queue behind a full rescan)."""
        if not wait and self._entries is not None and self._refreshing.locked():
            return self._entries
        with self._refreshing:
            self._refresh_locked(assemble_now=False)
            if self._entries is None:
                self._entries = {s.entry.slug: s.entry for s in self._scanned.values() if s.entry}
            return self._entries

    def _refresh_locked(self, full: bool = False, assemble_now: bool = True) -> None:
        now = self._checked = self._clock()
        changed = None if full or self._index is None else self._changed_folders(now)
        if changed is None:
            self._rescan_all(now)
        elif changed and self._rescan_folders(changed):
            self._stale = True
        if self._stale and assemble_now:
            self._index = assemble(self._scanned)
            self._stale = False

    def _changed_folders(self, now: float) -> list[str] | None:
        """Folders whose mtime moved, or None when a full rescan is due."""
        if now >= self._next_full or not self._folders:
            return None
        base = str(self._workspace.concepts_dir)
        changed = []
        settled = self._scanned_at_ns - SETTLE_NS
        self._scanned_at_ns = time.time_ns()
        for rel, mtime_ns in self._folders.items():
            try:
                now_ns = os.stat(os.path.join(base, rel) if rel else base).st_mtime_ns
            except OSError:
                return None  # a folder went away: let the full walk sort it out
            if now_ns != mtime_ns or mtime_ns >= settled:
                changed.append(rel)
        return changed

    def _rescan_all(self, started: float) -> None:
        self._scanned_at_ns = time.time_ns()
        cached = self._scanned or read_cache(self._workspace.page_index_path)
        folders: dict[str, int] = {}
        inodes: dict[str, int] = {}
        scanned = rescan(self._workspace, cached, folders, inodes)
        spent = self._clock() - started
        self._next_full = started + max(self._max_age_s, RESCAN_SPACING * spent)
        if self._index is None or scanned != self._scanned or self._stale:
            self._index = assemble(scanned)
            self._stale = False
            self._entries = None
        self._scanned, self._folders, self._inodes = scanned, folders, inodes
        self._children = {}
        for rel in scanned:
            self._children.setdefault(rel.rpartition("/")[0], set()).add(rel)

    def _rescan_folders(self, changed: list[str]) -> bool:
        """Re-list `changed` folders in place; returns whether any page changed."""
        base = str(self._workspace.concepts_dir)
        children = self._children
        jobs: list[tuple[str, str, int, int]] = []
        gone: set[str] = set()
        for folder in changed:
            listed: dict[str, os.DirEntry[str]] = {}
            for rel, item in list_folder(base, folder, self._folders):
                if is_folder(item):
                    if rel not in self._folders:
                        jobs += self._new_folder(rel)
                elif is_listed(item):
                    listed[rel] = item
            gone.update(rel for rel in children.get(folder, ()) if rel not in listed)
            for rel, item in listed.items():
                if rel in self._scanned and self._inodes.get(rel) == item.inode():
                    continue
                st = item.stat(follow_symlinks=False)
                self._inodes[rel] = st.st_ino
                hit = self._scanned.get(rel)
                if hit is None or (hit.mtime_ns, hit.size) != (st.st_mtime_ns, st.st_size):
                    jobs.append((base, rel, st.st_mtime_ns, st.st_size))
        for rel in gone:
            self._scanned.pop(rel, None)
            self._inodes.pop(rel, None)
            self._children.get(rel.rpartition("/")[0], set()).discard(rel)
        for job, result in zip(jobs, scan_all(jobs), strict=True):
            self._scanned[job[1]] = result
            self._children.setdefault(job[1].rpartition("/")[0], set()).add(job[1])
        if jobs or gone:
            self._entries = None
        return bool(jobs or gone)

    def _new_folder(self, rel_folder: str) -> list[tuple[str, str, int, int]]:
        """Parse jobs for every page under a folder created since the last scan."""
        base = str(self._workspace.concepts_dir)
        jobs = []
        for rel, st in walk_pages(self._workspace.concepts_dir, self._folders, rel_folder):
            self._inodes[rel] = st.st_ino
            jobs.append((base, rel, st.st_mtime_ns, st.st_size))
        return jobs


_SHARED: dict[str, LivePageIndex] = {}
_SHARED_GUARD = threading.Lock()


def fresh_pages(workspace: Workspace, wait: bool = True) -> dict[str, PageEntry]:
    """The workspace's pages as they are on disk now (slug -> entry), from a
    process-wide live index: only folders that changed are read again (a writer
    that must find every page holding a fact, under its lock, without stat'ing
    every page). `wait`: see `LivePageIndex.entries`."""
    return _shared(workspace).entries(wait)


def fresh_index(workspace: Workspace) -> PageIndex:
    """`load_page_index` as the pages are on disk now, from the same process-wide
    live index: a writer under the consolidation lock reads the folders that
    changed instead of stat'ing every page (at 2,000 pages under load, two full
    rescans were most of a correction's time)."""
    return _shared(workspace).refresh()


def _shared(workspace: Workspace) -> LivePageIndex:
    key = str(workspace.concepts_dir)
    with _SHARED_GUARD:
        live = _SHARED.get(key)
        if live is None:
            live = _SHARED[key] = LivePageIndex(workspace)
    return live
