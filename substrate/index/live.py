"""Search hits brought up to what the pages and the log hold now, before the
index catches up with a change.

A served workspace does not re-embed on a forget, a correction or a page
edit: the worker does that later, coalesced (`service.tending`). Until it
does, the collection still holds the old chunks. This view is the read-time
filter that makes the change visible to the very next card and search:

- a hit on a page that is gone is dropped;
- a hit on a page whose content changed since it was embedded shows the
  page's chunks as they are now (what the next maintain will index), so a
  forgotten fact's words are not shown and a correction's are;
- an episode of a session whose messages were forgotten shows the episode as
  the log holds it now (the forgotten words cut out), or is dropped when the
  episode is gone, until a maintain that began after the forget has indexed
  the session again.

Ranking stays the collection's until the re-embed; only what a hit shows and
whether it is shown follow the files.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import replace

from substrate.index.fusion import Hit
from substrate.pages.page_index import PageEntry, PageIndex

PAGE_KINDS = frozenset({"page", "history"})
EXCERPTS_KEPT = 512


class LiveView:
    """`pages`: the live page index (refreshed by whoever writes);
    `indexed_hash`: the content hash a page had when it was embedded (None when
    the collection holds no such page, or its state is not known yet);
    `excerpt_of`: a page's chunks as the next maintain would make them;
    `episode_now`: an episode's text as the log holds it now (session, slug,
    (from, to); None when it is gone)."""

    def __init__(
        self,
        pages: Callable[[], PageIndex],
        indexed_hash: Callable[[str], str | None],
        excerpt_of: Callable[[PageEntry], str],
        episode_now: Callable[[str, str, tuple[str, str]], str | None],
    ) -> None:
        self._pages = pages
        self._episode_now = episode_now
        self._indexed_hash = indexed_hash
        self._excerpt_of = excerpt_of
        self._lock = threading.Lock()
        self._sessions: dict[str, int] = {}  # session -> the generation that noted it
        self._generation = 0
        self._excerpts: OrderedDict[tuple[str, str], str] = OrderedDict()

    def sessions_changed(self, sessions: Collection[str]) -> None:
        """A forget changed these sessions' messages: their indexed episodes are
        not shown until a maintain that began after now finishes."""
        with self._lock:
            self._generation += 1
            for session in sessions:
                self._sessions[session] = self._generation

    def generation(self) -> int:
        """What a maintain starting now will cover (`caught_up` after it)."""
        with self._lock:
            return self._generation

    def caught_up(self, through: int) -> None:
        """A full maintain that began at generation `through` finished."""
        with self._lock:
            self._sessions = {s: g for s, g in self._sessions.items() if g > through}

    def current(self, hits: list[Hit]) -> list[Hit]:
        """`hits` as the files are now (see the module's docstring)."""
        with self._lock:
            sessions = set(self._sessions)
        index = self._pages()
        out = []
        for hit in hits:
            if hit.kind in PAGE_KINDS:
                entry = index.entries.get(hit.slug)
                if entry is None:
                    continue  # deleted, moved or forgotten whole
                if self._indexed_hash(hit.slug) not in (None, entry.content_hash):
                    hit = replace(hit, title=entry.title, excerpt=self._excerpt(entry))
            elif hit.meta is not None and str(hit.meta.get("session_id")) in sessions:
                meta = hit.meta
                span = (str(meta.get("from", "")), str(meta.get("to", "")))
                text = self._episode_now(str(meta["session_id"]), hit.slug, span)
                if text is None:
                    continue
                hit = replace(hit, excerpt=text)
            out.append(hit)
        return out

    def _excerpt(self, entry: PageEntry) -> str:
        key = (entry.slug, entry.content_hash)
        with self._lock:
            found = self._excerpts.get(key)
        if found is not None:
            return found
        made = self._excerpt_of(entry)
        with self._lock:
            self._excerpts[key] = made
            while len(self._excerpts) > EXCERPTS_KEPT:
                self._excerpts.popitem(last=False)
        return made
