"""`Injector.assemble`: what prompt assembly calls once per turn.

On tier v3 it runs the lanes (core, entity, sim, hot, edges, fresh) over the
PageIndex, the turn's hybrid search hits and the conversation's state,
selects within the quotas, renders the `<memory>` card and the `<info>`
block, and records the turn: the conversation's selection (for `hot`, and
its card for the voice front door) and the co-selection edges. On other
tiers there is no card (the v2 and v1 engines are not part of this package
yet); `<info>` still renders while the substrate is active.

Edges learn only from pages chosen for what the turn said (entity, sim,
fresh, hot): a `core` page is on every card and an `edges` pick would
reinforce itself, so neither strengthens edges on its own.

The voice front door does no retrieval and no query embedding: it returns the
conversation's frozen card from its previous turn plus `<info>` at once.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from injector.card import MIN_EXCERPT, CardPage, render_card
from injector.info import render_info
from injector.trust import render_profile, render_recall
from lanes.candidates import Candidate
from lanes.conversations import ConversationLimits, ConversationStore, TurnRecord
from lanes.edges import CoSelectionGraph, LearnedEdges, edges_lane
from lanes.entity import entity_lane
from lanes.recency import core_lane, hot_lane
from lanes.relevance import Floors, fresh_lane, sim_lane
from lanes.select import Selected, select, within_room
from substrate.config import Settings, is_memory_v3_live
from substrate.errors import InvalidInputError, MemoryServiceError
from substrate.index import EntityMatcher, Hit, SearchIndex, excerpt_for, matcher_for
from substrate.index.bm25 import query_terms, question_keys
from substrate.pages import (
    LivePageIndex,
    PageEntry,
    PageIndex,
    decode_page,
    read_page_file,
    split_frontmatter,
    strip_markers,
)
from substrate.safety import checked_text, surrogate_offset, tail_within
from substrate.sessions import SessionLog

SEARCH_K = 20
PAGE_HEAD = 110  # a page's tag and lanes on the card, roughly
MAX_ID_BYTES = 256
SEEDS = 3
LEARNS_EDGES = frozenset({"entity", "sim", "fresh", "hot"})
EXCERPT_CHARS = 400


@dataclass(frozen=True)
class SelectedPage:
    slug: str
    title: str
    lanes: tuple[str, ...]
    score: float
    reasons: dict[str, str]

    def as_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "lanes": list(self.lanes),
            "score": round(self.score, 6),
        }


@dataclass(frozen=True)
class Blocks:
    """`profile` is trusted (see `trust`); `memory` and `recall` are reference data."""

    memory: str
    info: str
    selected: list[SelectedPage]
    profile: str = ""
    recall: str = ""

    def as_json(self) -> dict[str, Any]:
        out = {
            "memory": self.memory,
            "info": self.info,
            "profile": self.profile,
            "selected": [s.as_json() for s in self.selected],
        }
        if self.recall:
            out["recall"] = self.recall
        return out


class Injector:
    """Holds what outlives a turn: the search index, the entity matcher, state paths."""

    def __init__(
        self,
        settings: Settings,
        search: SearchIndex | None,
        clock: Callable[[], float] = time.time,
        page_refresh_s: float = 0.0,
        sessions: SessionLog | None = None,
    ) -> None:
        """`page_refresh_s` spaces page-index refreshes while pages keep changing
        (the service under a bulk ingest); 0 checks on every turn. `sessions`,
        the conversation log, feeds the recall block."""
        self._settings = settings
        self._search = search
        self._sessions = sessions
        self._clock = clock
        self._pages = LivePageIndex(settings.workspace, min_interval_s=page_refresh_s)
        self._lock = threading.Lock()
        self._matcher: EntityMatcher | None = None
        self._v3 = v3 = settings.v3  # resolved once, not on every turn
        state = settings.workspace.state_dir
        self._conversations = ConversationStore(
            state / "conversations",
            ConversationLimits(
                max_turns=v3.conversation_turns, ttl_s=v3.conversation_ttl_hours * 3600
            ),
        )
        self._edges = LearnedEdges(state / "edges.jsonl", v3.edge_decay)

    def recent_turns(self) -> list[tuple[str, TurnRecord]]:
        """Every live conversation's recorded turns, newest first ("why was this chosen")."""
        return self._conversations.recent_turns(self._clock())

    def page_index(self) -> PageIndex:
        return self._pages.current()

    def warm(self) -> None:
        """Load what the first turn would: the page index, the entity matcher,
        the learned graph and the embedding model, so no request pays for it."""
        self.refresh_pages()
        with self._lock:
            self._edges.current()
        if self._search is not None:
            self._search.warm()

    def refresh_pages(self) -> None:
        """Read page changes now (a writer in this process just finished) and
        bring the entity matcher up to date off the turn path."""
        index = self._pages.refresh()
        with self._lock:
            self._match(index)

    def _match(self, index: PageIndex) -> EntityMatcher:
        if self._matcher is None or self._matcher.source is not index:
            self._matcher = matcher_for(index, self._matcher)
        return self._matcher

    def learned_graph(self) -> CoSelectionGraph:
        """A copy of the co-selection graph: turns on other threads keep changing the original."""
        with self._lock:
            graph = self._edges.current()
            return CoSelectionGraph(graph.graph.copy(), graph.turn, graph.decay)

    def close(self) -> None:
        if self._search is not None:
            self._search.store.close()

    def assemble(
        self, message: str, conversation_id: str | None = None, voice_front_door: bool = False
    ) -> Blocks:
        """The blocks for one turn. A message may be up to `message_bytes` long, but
        retrieval reads only its last `query_bytes` (where a question follows
        pasted context), so a long paste costs a turn no more than a short one."""
        limits = self._settings.limits
        checked_text(message, "message", limits.message_bytes, "message_bytes")
        if conversation_id is not None:
            check_conversation_id(conversation_id)
        v3 = self._v3
        info = render_info(self._settings, v3.info_buffer_entries)
        trusted = render_profile(self._settings)
        recall = "" if voice_front_door else render_recall(self._sessions, message)
        if not is_memory_v3_live(self._settings.config):
            return Blocks("", info, [], trusted, recall)
        now = self._clock()
        if voice_front_door:
            return replace(self._frozen(conversation_id, info, now), profile=trusted)
        if self._search is None:
            raise MemoryServiceError("this injector has no search index: only the voice front door")
        turn = tail_within(message, limits.query_bytes)
        hits = (
            self._search.search(turn, SEARCH_K, excerpt_chars=v3.card_budget_chars)
            if turn.strip()
            else []
        )
        self._pages.current()  # a due refresh happens here, outside the turn lock
        blocks = self._assemble(turn, conversation_id, hits, info, now)
        return replace(blocks, profile=trusted, recall=recall)

    def _assemble(
        self, message: str, conversation_id: str | None, hits: list[Hit], info: str, now: float
    ) -> Blocks:
        """The service runs turns on many threads: only what reads or changes the
        shared matcher and learned graph holds the lock; file I/O does not."""
        v3 = self._v3
        conversation = self._conversations.load(conversation_id, now) if conversation_id else None
        with self._lock:
            index = self._pages.latest or self._pages.current()  # the newest, whoever built it
            matcher = self._match(index)
            graph = self._edges.current()
            proposals = self._proposals(message, index, matcher, hits, conversation, graph, now)
        chosen = select(proposals, v3.quotas(), v3.max_pages, v3.backfill)
        pages = self._card_pages(chosen, index, hits, message)
        memory, shown = render_card(pages, v3.card_budget_chars)
        shown_slugs = {p.slug for p in shown}
        selected = [
            SelectedPage(s.slug, index.entries[s.slug].title, tuple(s.lanes), s.score, s.reasons)
            for s in chosen
            if s.slug in shown_slugs
        ]
        learned = [s.slug for s in selected if LEARNS_EDGES & set(s.lanes)]
        if len(learned) > 1:
            with self._lock:
                self._edges.record(learned)
        if conversation_id:
            self._conversations.record_turn(
                conversation_id,
                [s.slug for s in selected if "core" not in s.lanes or len(s.lanes) > 1],
                {"memory": memory, "selected": [s.as_json() for s in selected]},
                now,
                {s.slug: s.lanes for s in selected},
            )
        return Blocks(memory, info, selected)

    def _frozen(self, conversation_id: str | None, info: str, now: float) -> Blocks:
        if not conversation_id:
            return Blocks("", info, [])
        card = self._conversations.load(conversation_id, now).frozen_card or {}
        selected = [
            SelectedPage(s["slug"], s["title"], tuple(s["lanes"]), float(s["score"]), {})
            for s in card.get("selected", [])
        ]
        return Blocks(str(card.get("memory", "")), info, selected)

    def _proposals(
        self,
        message: str,
        index: PageIndex,
        matcher: EntityMatcher,
        hits: list[Hit],
        conversation: Any,
        graph: CoSelectionGraph,
        now: float,
    ) -> dict[str, list[Candidate]]:
        v3 = self._v3
        hits = [h for h in hits if h.slug in index.entries]
        proposals = {
            "core": core_lane(index),
            "entity": entity_lane(matcher, message),
            "sim": sim_lane(hits, Floors(v3.sim_floor_dense, v3.sim_floor_bm25, v3.sim_floor_ml)),
            "fresh": fresh_lane(
                hits,
                Floors(v3.fresh_floor_dense, v3.fresh_floor_bm25, v3.fresh_floor_ml),
                datetime.fromtimestamp(now, UTC),
                v3.fresh_days,
            ),
        }
        seeds = [c.slug for c in proposals["entity"][:SEEDS]]
        seeds += [c.slug for c in proposals["sim"][:SEEDS] if c.slug not in seeds]
        proposals["hot"], proposals["edges"] = within_room(
            proposals["sim"],
            v3.quota_sim,
            hot_lane(conversation, v3.hot_decay, index) if conversation else [],
            edges_lane(graph, seeds, v3.edge_threshold, index.entries),
        )
        return proposals

    def _card_pages(
        self, chosen: list[Selected], index: PageIndex, hits: list[Hit], message: str
    ) -> list[CardPage]:
        """Each page with its excerpt re-centred on the lines the turn names, cut to
        about the room the card can give it: the card shares its budget between all
        its pages, and cutting a search excerpt from its start would drop the line
        that matched whenever it was not the first."""
        by_slug = {h.slug: h for h in hits}
        rank = {h.slug: i for i, h in enumerate(hits)}
        terms = {*query_terms(message), *question_keys(message)}
        decay = self._v3.card_excerpt_decay
        weights = [decay ** rank.get(s.slug, len(hits)) for s in chosen]
        room = max(0, self._v3.card_budget_chars - PAGE_HEAD * len(chosen))
        pages = []
        for s, weight in zip(chosen, weights, strict=True):
            entry = index.entries[s.slug]
            hit = by_slug.get(s.slug)
            share = max(MIN_EXCERPT, int(room * weight / max(sum(weights), 1e-9)))
            excerpt = excerpt_for(hit.excerpt, terms, share) if hit else self._page_excerpt(entry)
            pages.append(
                CardPage(
                    slug=s.slug,
                    title=entry.title,
                    dated=entry.fresh_at.strftime("%Y-%m-%d") if entry.fresh_at else None,
                    lanes=tuple(s.lanes),
                    source=entry.source,
                    excerpt=excerpt,
                    quarantine=entry.quarantine,
                    weight=weight,
                )
            )
        return pages

    def _page_excerpt(self, entry: PageEntry) -> str:
        """A page chosen without a search hit: its summary, else the head of its body."""
        if entry.summary:
            return entry.summary
        path = self._settings.workspace.concepts_dir / entry.path
        try:
            return _body_head(path, entry.content_hash)
        except (OSError, InvalidInputError):
            return ""  # not cached: the next turn tries again


def check_conversation_id(conversation_id: str) -> str:
    """A conversation id names a state file (hashed): any text, but short and valid."""
    if (
        surrogate_offset(conversation_id) is not None
        or len(conversation_id.encode()) > MAX_ID_BYTES
    ):
        raise InvalidInputError(
            f"conversation_id must be valid UTF-8 text of at most {MAX_ID_BYTES} bytes"
        )
    return conversation_id


@functools.lru_cache(maxsize=4096)
def _body_head(path: Path, content_hash: str) -> str:
    """Keyed by the indexed content hash: `hot`, `core` and `edges` pages come back
    turn after turn, and re-reading their files was a tenth of a card under load.
    An edited page has a new hash once the page index sees it."""
    _, body = split_frontmatter(decode_page(read_page_file(path)))
    return strip_markers(body).strip()[:EXCERPT_CHARS]
