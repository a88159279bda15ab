"""What the page-reading engines (v2, v3) share across turns: the live page index,
the entity matcher built from it, the learned co-selection edges, and the lock
that guards the last two (the service runs turns on many threads)."""

from __future__ import annotations

import functools
import threading
from pathlib import Path

from lanes.edges import CoSelectionGraph, LearnedEdges
from substrate.config import Workspace
from substrate.errors import InvalidInputError
from substrate.index import EntityMatcher, matcher_for
from substrate.pages import (
    LivePageIndex,
    PageEntry,
    PageIndex,
    decode_page,
    fact_bullets,
    read_page_file,
    split_frontmatter,
    strip_markers,
)

EXCERPT_CHARS = 400


class PageState:
    def __init__(self, pages: LivePageIndex, edges: LearnedEdges, pages_dir: Path) -> None:
        self.pages = pages
        self._pages_dir = pages_dir
        self.edges = edges
        self.lock = threading.Lock()
        self._matcher: EntityMatcher | None = None

    @classmethod
    def for_workspace(cls, workspace: Workspace, refresh_s: float, edge_decay: float) -> PageState:
        """`refresh_s` spaces page-index refreshes while pages keep changing (the
        service under a bulk ingest); 0 checks on every turn."""
        pages = LivePageIndex(workspace, min_interval_s=refresh_s)
        edges = LearnedEdges(workspace.state_dir / "edges.jsonl", edge_decay)
        return cls(pages, edges, workspace.concepts_dir)

    def refresh(self) -> None:
        """Read page changes now and bring the matcher up to date off the turn path."""
        index = self.pages.refresh()
        with self.lock:
            self.matcher(index)

    def newest(self) -> PageIndex:
        """The newest index, whoever built it (a due refresh runs in `pages.current`)."""
        return self.pages.latest or self.pages.current()

    def matcher(self, index: PageIndex) -> EntityMatcher:
        """Call with `lock` held."""
        if self._matcher is None or self._matcher.source is not index:
            self._matcher = matcher_for(index, self._matcher)
        return self._matcher

    def learned_graph(self) -> CoSelectionGraph:
        """A copy: turns on other threads keep changing the original."""
        with self.lock:
            graph = self.edges.current()
            return CoSelectionGraph(graph.graph.copy(), graph.turn, graph.decay)

    def newest_sources(self, entry: PageEntry) -> tuple[int, ...]:
        """The logged messages the page's newest current captured fact was drawn
        from (its lineage, `from:`): where the conversation that last updated
        the page said it. Empty for a page with no captured fact."""
        try:
            return _newest_sources(self._pages_dir / entry.path, entry.content_hash)
        except (OSError, InvalidInputError):
            return ()

    def page_excerpt(self, entry: PageEntry) -> str:
        """A page chosen without a search hit: its summary, else the head of its body."""
        if entry.summary:
            return entry.summary
        try:
            return _body_head(self._pages_dir / entry.path, entry.content_hash)
        except (OSError, InvalidInputError):
            return ""  # not cached: the next turn tries again


@functools.lru_cache(maxsize=4096)
def _body_head(path: Path, content_hash: str) -> str:
    """Keyed by the indexed content hash: `hot`, `core` and `edges` pages come back
    turn after turn, and re-reading their files was a tenth of a card under load.
    An edited page has a new hash once the page index sees it."""
    _, body = split_frontmatter(decode_page(read_page_file(path)))
    return strip_markers(body).strip()[:EXCERPT_CHARS]


@functools.lru_cache(maxsize=4096)
def _newest_sources(path: Path, content_hash: str) -> tuple[int, ...]:
    """Keyed by the indexed content hash, as `_body_head`: a page's lineage is
    read once per version, not once per turn."""
    _, body = split_frontmatter(decode_page(read_page_file(path)))
    facts = [b for b in fact_bullets(body) if b.current and b.sources]
    if not facts:
        return ()
    return max(facts, key=lambda b: (b.day, max(b.sources))).sources
