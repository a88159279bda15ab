"""`Injector.assemble`: what prompt assembly calls once per turn, on every tier.

The spine. It checks the turn, asks the tier predicates which one tier runs,
and composes that tier's engine with what every tier shares: off renders
nothing; v3 (`injector/v3`, lanes and card) and v2 (`injector/v2`, activation,
router and rerank) read the concept pages and render `<memory>`; v1
(`injector/v1`) reads the knowledge base (`memory/pkb/`) and renders
`<knowledge_base>`. Beside the engine's block: the trusted profile on every
tier that is on, the keyword recall block on v2 and v1 (v3's card answers a
turn about the past with episodes instead), and `<info>` while the
concept-page substrate is active (v2, v3). Only this module imports the
engines, and it builds only the one its tier runs (the tier is read once, at
start).

The voice front door does no retrieval and no query embedding: on v3 it
returns the conversation's frozen card from its previous turn, on v2 and v1
(which keep no conversation state) no engine block; profile and `<info>` as
on any turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from injector.blocks import Blocks, SelectedPage, check_conversation_id
from injector.info import render_info
from injector.page_state import PageState
from injector.trust import render_profile, render_recall
from injector.v1 import V1Engine
from injector.v2 import V2Engine
from injector.v3 import V3Engine
from lanes.conversations import TurnRecord
from lanes.edges import CoSelectionGraph
from substrate.config import Settings, memory_tier
from substrate.errors import MemoryServiceError
from substrate.index import SearchIndex
from substrate.pages import PageIndex
from substrate.safety import checked_text, tail_within
from substrate.sessions import SessionLog


class Injector:
    """Holds what outlives a turn: the tier's engine, the page state it reads."""

    def __init__(
        self,
        settings: Settings,
        search: SearchIndex | None,
        clock: Callable[[], float] = time.time,
        page_refresh_s: float = 0.0,
        sessions: SessionLog | None = None,
    ) -> None:
        """`search` is the index this tier reads: the concept-page collection (v2,
        v3) or the knowledge base's (v1, `Settings.pkb()`); None serves only the
        voice front door. `page_refresh_s` spaces page-index refreshes while pages
        keep changing (the service under a bulk ingest); 0 checks on every turn.
        `sessions`, the conversation log, feeds the recall block."""
        self._settings = settings
        self.tier = tier = memory_tier(settings.config)
        self._search = search
        self._sessions = sessions
        self._clock = clock
        corpus = settings.pkb().workspace if tier == "v1" else settings.workspace
        self._state = PageState.for_workspace(corpus, page_refresh_s, settings.v3.edge_decay)
        self._v3 = (
            V3Engine(settings, search, self._state, clock, sessions) if tier == "v3" else None
        )
        self._v2 = V2Engine(settings, search, self._state) if tier == "v2" and search else None
        self._v1 = V1Engine(search) if tier == "v1" and search else None

    def recent_turns(self) -> list[tuple[str, TurnRecord]]:
        """Every live conversation's recorded turns, newest first (v3 keeps them)."""
        return self._v3.recent_turns() if self._v3 is not None else []

    def page_index(self) -> PageIndex:
        """The pages this tier reads: concept pages, or the knowledge base on v1."""
        return self._state.pages.current()

    def warm(self) -> None:
        """Load what the first turn would: the page index, the entity matcher,
        the learned graph and the embedding model, so no request pays for it."""
        if self.tier == "off":
            return
        self._state.refresh()
        with self._state.lock:
            self._state.edges.current()
        if self._search is not None:
            self._search.warm()

    def refresh_pages(self) -> None:
        """Read page changes now (a writer in this process just finished) and
        bring the entity matcher up to date off the turn path."""
        self._state.refresh()

    def learned_graph(self) -> CoSelectionGraph:
        return self._state.learned_graph()

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
        if self.tier == "off":
            return Blocks("off")
        info = render_info(self._settings, self._settings.v3.info_buffer_entries)
        trusted = render_profile(self._settings)
        turn = tail_within(message, limits.query_bytes)  # what a turn's retrieval reads
        # v3 answers a turn about the past with episodes on its card (`injector/v3/
        # episodes.py`); the keyword recall block serves the tiers without them.
        keyword_recall = not voice_front_door and self.tier != "v3"
        recall = render_recall(self._sessions, turn) if keyword_recall else ""
        block, selected = self._engine_block(turn, conversation_id, voice_front_door)
        v1 = self.tier == "v1"
        return Blocks(
            self.tier,
            memory="" if v1 else block,
            info=info,
            selected=selected,
            profile=trusted,
            recall=recall,
            knowledge_base=block if v1 else "",
        )

    def _engine_block(
        self, turn: str, conversation_id: str | None, voice: bool
    ) -> tuple[str, list[SelectedPage]]:
        now = self._clock()
        if voice:
            return self._v3.frozen(conversation_id, now) if self._v3 is not None else ("", [])
        if self._v3 is not None:  # v3's lanes answer without an index, search's lane aside
            return self._v3.assemble(turn, conversation_id, now)
        if self._search is None:
            raise MemoryServiceError("this injector has no search index: only the voice front door")
        if self._v2 is not None:
            return self._v2.assemble(turn)
        if self._v1 is not None:
            return self._v1.assemble(turn)
        return "", []
