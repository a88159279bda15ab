"""Keeping a workspace's index up to its pages and its log, a part of `Memory`
(mixed into it, like `Tending`, `Reviewing` and `Purging`).

`maintain` brings the index up to the pages (one writer at a time) and
refreshes the card's view of them; `maintain_after_write` lets the writes that
finish together share one maintain, and on a served workspace defers the
re-embedding of a change that takes away to the worker. `after_forget`,
`follow_pages` and `compact` keep the log's episodes, the live view and the
store in step with what changed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from service.read_slots import ReadSlots
from substrate import IndexDamagedError, Settings, StoreUnavailableError

if TYPE_CHECKING:
    from injector import Injector
    from service.memory import Capabilities, Jobs, Progress, ProgressFn
    from substrate import Capability, MaintainReport, PageIndex, SearchIndex
    from substrate.config.tiers import Tier
    from substrate.index.consistency import Problem
    from substrate.sessions import SessionLog
    from substrate.sessions.episodes import Episode, LoggedEpisodes


class _Maintained(Protocol):
    """What the maintaining part reads of its `Memory`."""

    settings: Settings
    tier: Tier
    capabilities: Capabilities
    progress: Progress
    jobs: Jobs | None
    stop_check: ProgressFn | None
    needs_compaction: bool
    _index: SearchIndex | None
    _injector: Injector | None
    _episodes: LoggedEpisodes
    _reads: ReadSlots
    _compact: bool
    _maintain_on_open: bool
    _index_lock: threading.Lock
    _writes_lock: threading.Lock
    _catch_up: threading.Lock
    _writes_done: int
    _maintained_through: int
    _written_pages: set[str]
    _written_anything: bool

    @property
    def index(self) -> SearchIndex: ...

    @property
    def injector(self) -> Injector: ...

    def _reading_log(self) -> SessionLog: ...

    def _damaged(self, exc: IndexDamagedError) -> None: ...

    def maintain(
        self,
        rebuild: bool = False,
        only: Collection[str] | None = None,
        background: bool = False,
    ) -> MaintainReport: ...

    def _entries(self) -> list[Capability]: ...

    def _checked(self, bar: ProgressFn, background: bool = False) -> ProgressFn: ...

    def _episode_now(self, session_id: str, slug: str, span: tuple[str, str]) -> str | None: ...


class Maintaining:
    def maintain(
        self: _Maintained,
        rebuild: bool = False,
        only: Collection[str] | None = None,
        background: bool = False,
    ) -> MaintainReport:
        """The index brought up to the pages (one writer at a time), then the card's
        view of the pages refreshed. `only`: the pages a change just wrote.
        `background` (the worker's): between embedding batches it yields the
        cores to cards and searches in flight (bounded per batch)."""
        self._maintain_on_open = False
        index = self.index
        covers = index.live.generation() if index.live is not None else 0
        with self._index_lock, self.progress("embedding chunks") as bar:
            entries = self.capabilities() if only is not None else self._entries()
            try:
                report = index.maintain(
                    entries,
                    rebuild=rebuild,
                    optimize=self._compact,
                    progress=self._checked(bar, background),
                    only=only,
                )
            except IndexDamagedError as exc:
                self._damaged(exc)
                raise
            if not self._compact and (report.embedded or report.deleted or report.rebuilt):
                self.needs_compaction = True
        if index.live is not None and only is None:
            index.live.caught_up(covers)  # the episodes were cut again from the log
        if report.pages and not report.rebuilt:
            from substrate.consolidation.tending import note_hand_edits

            edited = note_hand_edits(self.settings, report.pages)
            if edited:
                _views_after_hand_edits(self.settings, edited)
        if self._injector is not None:
            self._injector.refresh_pages()
        return report

    def maintain_after_write(
        self: _Maintained, pages: Collection[str] | None = None, defer: bool = False
    ) -> MaintainReport | None:
        """The index brought up to a write this thread just finished (to `pages`,
        or to anything when None), sharing one maintain with the writes that
        finished alongside it: a maintain that began after this write covers
        it, so when one has finished meanwhile, nothing more is run (None).
        Under 24 clients forgetting and correcting, each paid for its own full
        maintain, one after another. When every covered write named its pages,
        the maintain reads those pages alone.

        `defer` (a change that takes away: a forget, a correction, a delete, a
        pin): a served workspace does not embed here. The live page index is
        refreshed (search and the card follow it at once, `SearchIndex.follow`)
        and the re-embedding is queued on the worker. Under 24 clients, a forget
        that embedded on its own request waited seconds behind the cards'
        threads."""
        live = self._index is not None and self._index.live is not None
        if defer and live and self.jobs is not None:
            if self._injector is not None:
                self._injector.refresh_pages()
            self.jobs.reindex_soon()
            return None
        with self._writes_lock:
            self._writes_done += 1
            mine = self._writes_done
            if pages is None:
                self._written_anything = True
            else:
                self._written_pages.update(pages)
        with self._catch_up:
            if self._maintained_through >= mine:
                return None
            with self._writes_lock:
                through = self._writes_done
                only = None if self._written_anything else set(self._written_pages)
                self._written_pages.clear()
                self._written_anything = False
            try:
                report = self.maintain(only=only)
            except BaseException:
                with self._writes_lock:  # the next maintain takes them up
                    self._written_anything |= only is None
                    self._written_pages.update(only or ())
                raise
            self._maintained_through = through
            return report

    def _entries(self: _Maintained) -> list[Capability]:
        """What the index holds beside the pages: the capabilities, and the
        conversation log's episodes where the concept-page substrate is active."""
        entries = list(self.capabilities())
        if self.tier == "v1":
            return entries
        try:
            log = self._reading_log()
        except StoreUnavailableError:
            return entries
        return entries + episode_entries(self._episodes(log))

    def after_forget(self: _Maintained, touched: Sequence[str], sessions: bool) -> None:
        """A forget changed these sessions' messages (an erased or redacted one:
        their episodes are cut again) and, with `sessions`, took whole sessions:
        a served workspace queues a purge, so their bytes leave the disk soon."""
        self._episodes.forget(touched)
        from service.replays import replay_store

        replay_store(self.settings.workspace.state_dir).clear()  # a request's hash goes too
        from substrate.profile.pending import drop_sessions

        drop_sessions(self.settings, touched)  # a parked line learned from them goes too
        if self._index is not None and self._index.live is not None:
            self._index.live.sessions_changed(touched)
        if sessions and self.jobs is not None:
            self.jobs.purge_soon()

    @contextlib.contextmanager
    def index_writes_held(self: _Maintained) -> Iterator[None]:
        """No maintain runs meanwhile (the swap of a rebuilt shard)."""
        with self._index_lock:
            yield

    def index_problems(self: _Maintained, pages: PageIndex) -> list[Problem]:
        """The index's checks (`memory doctor`'s) against this process's open
        index, between its writes (a maintain half done is not a problem)."""
        from substrate.index.consistency import index_problems

        index = self.index
        with self._index_lock:
            return index_problems(self.settings.indexed_corpus(), index, pages)

    def follow_pages(self: _Maintained) -> None:
        """Search and the card follow the pages and the log as they are now, not
        only as last embedded (a served workspace: tending re-embeds later)."""
        self.index.follow(lambda: self.injector.page_index(), self._episode_now)

    def _episode_now(
        self: _Maintained, session_id: str, slug: str, span: tuple[str, str]
    ) -> str | None:
        """The episode `slug` as the log holds it now; when a forget re-cut the
        session (its slug is gone), the episode now covering the same span."""
        from substrate.index.excerpts import chunk_excerpt

        episodes = self._episodes.of_session(self._reading_log(), session_id)
        same = [e for e in episodes if e.slug == slug]
        overlapping = [e for e in episodes if _overlaps(e.meta(), span)]
        for episode in same or overlapping[:1]:
            return chunk_excerpt(episode.text, episode.title)
        return None

    def compact(self: _Maintained, wait: bool = True) -> bool:
        """Compact the store after writes (`compact=False`); False when there was
        nothing to compact or, without `wait`, a write still runs."""
        if not self._index_lock.acquire(blocking=wait):
            return False
        try:
            if not self.needs_compaction or self._index is None:
                return False
            self._index.optimize()
            self.needs_compaction = False
            return True
        finally:
            self._index_lock.release()

    def _checked(self: _Maintained, bar: ProgressFn, background: bool = False) -> ProgressFn:
        stop = self.stop_check
        if stop is None and not background:
            return bar

        def both(done: int, total: int) -> None:
            if stop is not None:
                stop(done, total)
            if background:
                self._reads.give_way()
            bar(done, total)

        return both


def _overlaps(meta: dict[str, Any], span: tuple[str, str]) -> bool:
    return str(meta.get("from", "")) <= span[1] and span[0] <= str(meta.get("to", ""))


def _views_after_hand_edits(settings: Settings, pages: list[str]) -> None:
    """A page a person edited may no longer hold what a view shows (or holds what
    it should): the views derived again from those pages."""
    from substrate.consolidation.views import refresh_views
    from substrate.pages import load_page_index
    from substrate.safety import hold_lock

    with hold_lock(settings.workspace.consolidation_lock_path, purpose="views"):
        refresh_views(settings, load_page_index(settings.workspace), changed=pages)


def episode_entries(episodes: Iterable[Episode]) -> list[Capability]:
    """Episodes as the index's synthetic entries (`kind` episode, their session
    and span as `meta`)."""
    from substrate.index import Capability

    entries = []
    for e in episodes:
        meta = e.meta()
        day = str(meta["from"])[:10]
        entries.append(
            Capability(e.slug, e.title, e.text, kind="episode", meta=meta, origin_date=day)
        )
    return entries
