"""The v3 engine: the declared lanes (`substrate.config.lanes`; core, entity, sim,
hot, edges, fresh) over the PageIndex,
the turn's hybrid search hits and the conversation's state, selected within the
quotas and rendered as the `<memory>` card. Each turn is recorded: the
conversation's selection (for `hot`, and its card for the voice front door) and
the co-selection edges.

Edges learn only from pages chosen for what the turn said (entity, sim,
fresh, hot): a `core` page is on every card and an `edges` pick would
reinforce itself, so neither strengthens edges on its own.

The voice front door does no retrieval and no query embedding: it returns the
conversation's frozen card from its previous turn at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from injector.blocks import SelectedPage
from injector.page_state import PageState
from injector.trust import is_current_turn, is_recall_turn
from injector.v3.card import CardPage, render_card
from injector.v3.episodes import RECALL_SHARE, CardEpisode, card_episodes
from injector.v3.fitting import units_of
from lanes.conversations import ConversationLimits, ConversationStore, TurnRecord
from lanes.health import note_unsaved
from lanes.registry import Turn, propose
from lanes.select import Selected, select
from substrate.config import Settings
from substrate.config.lanes import learns_edges
from substrate.index import Hit, SearchIndex
from substrate.index.bm25 import query_terms, question_keys
from substrate.index.search_index import QueryVectors
from substrate.pages import PageIndex, in_words
from substrate.sessions import SessionLog, WindowFinder

SEARCH_K = 20
EPISODE_K = 6  # windows searched for a card (it shows at most `episodes.RECALL_MOST` sessions)
EPISODE_CHUNKS = 16  # from this many chunks per signal: each episode is a chunk or two
LINKED_PAGES = 2  # the turn's first pages whose latest conversation the card may reach
CARD_SPANS = (4, 0.5)  # a page's chunks a card may show, and how close to its best
FILL_FLOOR = 0.3  # a hit filling the room left scores this share of the best hit
ROOM = "room"  # why a page filling the room is on the card
SEARCH_TOP = "search"  # why a page of search's first hits the lanes left off is on it

Picked = tuple[str, list[SelectedPage]]  # (the rendered block, the pages on it)


class V3Engine:
    """Holds the v3 state that outlives a turn: the conversations and, through
    `state`, the page index, matcher and learned edges."""

    def __init__(
        self,
        settings: Settings,
        search: SearchIndex | None,
        state: PageState,
        clock: Callable[[], float],
        sessions: SessionLog | None = None,
    ) -> None:
        """`search` None serves only the voice front door (`frozen`). `sessions`,
        the conversation log, leads a page to the conversation that last
        updated it (`_linked`)."""
        self._settings = settings
        self._search = search
        self._windows = WindowFinder(sessions) if sessions is not None else None
        self._state = state
        self._clock = clock
        self._v3 = v3 = settings.v3  # resolved once, not on every turn
        self._conversations = ConversationStore(
            settings.workspace.state_dir / "conversations",
            ConversationLimits(
                max_turns=v3.conversation_turns, ttl_s=v3.conversation_ttl_hours * 3600
            ),
        )

    def recent_turns(self) -> list[tuple[str, TurnRecord]]:
        """Every live conversation's recorded turns, newest first ("why was this chosen")."""
        return self._conversations.recent_turns(self._clock())

    def assemble(self, turn: str, conversation_id: str | None, now: float) -> Picked:
        """The card for the turn's text (already cut to `query_bytes`). Without an
        index (a store that cannot open: a full disk) the lanes that need no
        search still choose, so a card still answers."""
        search = self._search
        vectors = search.embed_query(turn) if search is not None and turn.strip() else {}
        hits = (
            search.search_embedded(turn, vectors, SEARCH_K, excerpt_chars=None, spans=CARD_SPANS)
            if vectors and search is not None
            else []
        )
        said = (
            search.search_embedded(
                turn,
                vectors,
                EPISODE_K,
                excerpt_chars=None,
                kind="episode",
                candidates=EPISODE_CHUNKS,
            )
            if vectors and search is not None and search.holds_episodes()
            else []
        )
        self._state.pages.current()  # a due refresh happens here, outside the turn lock
        recall = is_recall_turn(turn)
        current = is_current_turn(turn)
        if said and search is not None:  # the card ranks every line of a window it found
            said = search.whole_windows(said)
        linked = self._linked(hits, said, vectors) if said else []
        said += linked
        episodes = (
            card_episodes(
                said,
                self._v3.episode_floor,
                recall,
                current,
                {*query_terms(turn), *question_keys(turn)},
                search.line_scores(vectors, [h.slug for h in said]),
                {str((h.meta or {}).get("session_id")) for h in linked},
            )
            if said and search is not None
            else []
        )
        return self._assemble(turn, conversation_id, hits, now, vectors, episodes, recall)

    def _linked(self, hits: list[Hit], said: list[Hit], vectors: QueryVectors) -> list[Hit]:
        """The conversation that last updated each of the turn's first pages (the
        lineage of the page's newest captured fact), as an episode hit, when the
        episode search did not find it: a session that updates an endeavour is
        reached from the endeavour's page, however it was worded."""
        search, windows = self._search, self._windows
        if search is None or windows is None:
            return []
        index = self._state.newest()
        found = {str((h.meta or {}).get("session_id")) for h in said}
        slugs: list[str] = []
        for hit in [h for h in hits if h.kind == "page"][:LINKED_PAGES]:
            entry = index.entries.get(hit.slug)
            sources = self._state.newest_sources(entry) if entry is not None else ()
            window = windows.holding(sources) if sources else None
            if window is not None and window.session_id not in found:
                found.add(window.session_id)
                slugs.append(window.slug)
        return search.nearest_windows(vectors, slugs)

    def _assemble(
        self,
        message: str,
        conversation_id: str | None,
        hits: list[Hit],
        now: float,
        vectors: QueryVectors | None = None,
        episodes: Sequence[CardEpisode] = (),
        recall: bool = False,
    ) -> Picked:
        """The service runs turns on many threads: only what reads or changes the
        shared matcher and learned graph holds the lock; file I/O does not."""
        v3, state = self._v3, self._state
        conversation = self._conversations.load(conversation_id, now) if conversation_id else None
        with state.lock:
            index = state.newest()
            matcher = state.matcher(index)
            graph = state.edges.current()
            hits = [h for h in hits if h.slug in index.entries]
            turn = Turn(message, index, matcher, hits, conversation, graph, now, v3)
            proposals = propose(turn)
        chosen = select(proposals, v3.quotas(), v3.max_pages, v3.backfill)
        chosen += room_fill(chosen, hits, v3.max_pages)
        top = hits[: v3.keep_search_top]
        chosen = with_search_top(chosen, top, v3.max_pages)
        pages = self._card_pages(chosen, index, hits, message, vectors or {})
        today = in_words(datetime.fromtimestamp(now, UTC).date())
        share = max(RECALL_SHARE, v3.episode_share) if recall else v3.episode_share
        memory, shown = render_card(
            pages, v3.card_budget_chars, today, episodes, share, [h.slug for h in top]
        )
        shown_slugs = {p.slug for p in shown}
        dated = {p.slug: p.dated for p in shown}
        selected = [
            SelectedPage(
                s.slug,
                index.entries[s.slug].title,
                tuple(s.lanes),
                s.score,
                s.reasons,
                dated[s.slug],
            )
            for s in chosen
            if s.slug in shown_slugs
        ]
        self._record(conversation_id, memory, selected, now)
        return memory, selected

    def _record(
        self, conversation_id: str | None, memory: str, selected: list[SelectedPage], now: float
    ) -> None:
        """The turn's learned edges and the conversation's state: derived, so a full
        disk or a read-only workspace costs them, never the card (counted)."""
        learning = learns_edges()
        learned = [s.slug for s in selected if learning & set(s.lanes)]
        try:
            if len(learned) > 1:
                with self._state.lock:
                    self._state.edges.record(learned)
            if conversation_id:
                self._conversations.record_turn(
                    conversation_id,
                    [s.slug for s in selected if "core" not in s.lanes or len(s.lanes) > 1],
                    {"memory": memory, "selected": [s.as_json() for s in selected]},
                    now,
                    {s.slug: s.lanes for s in selected},
                )
        except OSError as exc:
            note_unsaved("turn state", exc)

    def frozen(self, conversation_id: str | None, now: float) -> Picked:
        """The voice front door: the conversation's card from its previous turn."""
        if not conversation_id:
            return "", []
        card = self._conversations.load(conversation_id, now).frozen_card or {}
        selected = [
            SelectedPage(
                s["slug"], s["title"], tuple(s["lanes"]), float(s["score"]), {}, s.get("dated")
            )
            for s in card.get("selected", [])
        ]
        return str(card.get("memory", "")), selected

    def _card_pages(
        self,
        chosen: list[Selected],
        index: PageIndex,
        hits: list[Hit],
        message: str,
        vectors: QueryVectors,
    ) -> list[CardPage]:
        """Each page with its units, best first: a search hit's chunks as search
        ranked them (`fitting`), a page chosen without one by its summary or the
        head of its body."""
        by_slug = {h.slug: h for h in hits}
        terms = {*query_terms(message), *question_keys(message)}
        meaning: dict[str, dict[int, float]] = {}
        if vectors and self._search is not None:
            found = [(s.slug, index.entries[s.slug].content_hash) for s in chosen]
            meaning = self._search.unit_scores(vectors, [p for p in found if p[0] in by_slug])
        pages = []
        for s in chosen:
            entry = index.entries[s.slug]
            hit = by_slug.get(s.slug)
            excerpt = hit.excerpt if hit is not None else self._state.page_excerpt(entry)
            pages.append(
                CardPage(
                    slug=s.slug,
                    title=entry.title,
                    dated=entry.fresh_at.strftime("%Y-%m-%d") if entry.fresh_at else None,
                    lanes=tuple(s.lanes),
                    source=entry.source,
                    excerpt=excerpt,
                    quarantine=entry.quarantine,
                    units=tuple(units_of(excerpt, terms, meaning.get(s.slug))),
                )
            )
        return pages


def with_search_top(chosen: list[Selected], top: list[Hit], most: int) -> list[Selected]:
    """`chosen` holding every page of search's first hits for the turn (`top`):
    one the lanes left off joins the card, and on a full card takes the place of
    the last chosen page that is neither among them nor core (the lanes choose
    in priority order, so the last is the least needed)."""
    taken = {s.slug for s in chosen}
    ranked = {h.slug: i + 1 for i, h in enumerate(top)}
    out = list(chosen)
    for hit in top:
        if hit.slug in taken:
            continue
        if len(out) >= most:
            spare = [s for s in out if s.slug not in ranked and "core" not in s.lanes]
            if not spare:
                break
            out.remove(spare[-1])
        reason = f"search ranks it {ranked[hit.slug]} for this turn"
        out.append(Selected(hit.slug, SEARCH_TOP, hit.score, [SEARCH_TOP], {SEARCH_TOP: reason}))
    return out


def room_fill(chosen: list[Selected], hits: list[Hit], most: int) -> list[Selected]:
    """The turn's next search hits for the room the lanes left: those scoring at
    least `FILL_FLOOR` of its best hit, up to `most` pages on the card in all.
    The fused score says how a hit stands against the turn's best, not how good
    it is, so the floor is relative; the card leaves off what it cannot show."""
    if not hits or len(chosen) >= most:
        return []
    taken = {s.slug for s in chosen}
    floor = FILL_FLOOR * hits[0].score
    out: list[Selected] = []
    for hit in hits:
        if len(chosen) + len(out) >= most:
            break
        if hit.slug not in taken and hit.score >= floor:
            share = hit.score / hits[0].score if hits[0].score else 0.0
            reason = f"fills the room: {share:.2f} of the best hit's score"
            out.append(Selected(hit.slug, ROOM, hit.score, [ROOM], {ROOM: reason}))
    return out
