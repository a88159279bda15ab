"""Episodes on the `<memory>` card: what was said in a conversation, after the
pages, in the room they leave.

Pages say what is true now; an episode is what was said then, so it is dated
and labelled as such, every line keeps its speaker ("you" for the person,
"assistant", "tool"), and one that holds anything but the person's words is
marked `trust="untrusted"` like an imported page: the assistant's or a tool's
words are not the person's facts. Escaped like pages, so conversation text can
never open or close the card's tags.

An episode is a window of up to ~1,500 characters; the card has room for a
few of its lines. They are chosen by meaning: each line's multilingual cosine
with the turn (the index's unit vectors of the episode), the best first,
shown in the order they were said. Episodes are shown newest first, and an
older one says it is older: where two conversations differ, the later one
holds (the newest statement of a changed value above the stale one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from html import escape

from substrate.index import Hit
from substrate.index.search_index import QueryVectors, SearchIndex
from substrate.index.units import split_units, unit_key

NOTE = "What was said in an earlier conversation, as said then (it may no longer be true).\n"
UNTRUSTED_NOTE = "Lines not from you are the assistant's or a tool's words, not facts about you.\n"
OLDER_NOTE = "Said before the conversation above: where they differ, the later one holds.\n"
MOST = 2  # episodes a card shows
# A turn that asks about the past ("what did we decide last week?") leans on
# episodes: more of them, a floor no higher than `RECALL_FLOOR`, and at least
# `RECALL_SHARE` of the card kept for them (every turn: `memory.v3.episode_floor`
# and `episode_share`).
RECALL_MOST = 3
RECALL_FLOOR = 0.25
RECALL_SHARE = 0.5
NEWER_MARGIN = 0.05  # cosine a later conversation may trail the last one chosen by
MIN_ROOM = 160  # characters an episode needs to show one line
TAIL = "</episode>\n"


@dataclass(frozen=True)
class CardEpisode:
    session_id: str
    dated: str  # YYYY-MM-DD of its first turn
    text: str  # its lines, "[time] speaker: words"
    speakers: tuple[str, ...]
    slug: str = ""
    at: str = ""  # ISO time of its first turn: newest first
    meaning: dict[int, float] = field(default_factory=dict)  # unit key -> cosine with the turn

    def lines(self) -> list[str]:
        """Its lines to show, in the order they are worth the room: from the
        line nearest the turn by meaning (the index's unit vectors of the
        episode) onward, then the lines before it, nearest first; in the order
        said when the index has no vectors for it. The lines after the best
        keep what answered it (a question's reply follows the question)."""
        lines = [line for line in self.text.split("\n") if line.strip()]
        if not self.meaning or not lines:
            return lines
        best = max(range(len(lines)), key=lambda i: self._score(lines[i]))
        start = max(0, best - 1)  # the line before: what it answered, or what led to it
        return [*lines[start:], *reversed(lines[:start])]

    def _score(self, line: str) -> float:
        found = [self.meaning.get(unit_key(u)) for u in split_units(line)]
        return max((f for f in found if f is not None), default=-1.0)

    @property
    def untrusted(self) -> bool:
        return any(s != "user" for s in self.speakers)


def card_episodes(hits: list[Hit], floor: float, recall: bool = False) -> list[CardEpisode]:
    """The episode hits worth a card's room, best first: those whose best chunk's
    cosine reaches `floor`; `recall`: the turn asks about the past."""
    out: list[tuple[float, CardEpisode]] = []
    floor, most = (min(floor, RECALL_FLOOR), RECALL_MOST) if recall else (floor, MOST)
    for hit in hits:
        meta = hit.meta or {}
        cosine = max(hit.dense_score or 0.0, hit.dense_ml_score or 0.0)
        if hit.kind != "episode" or cosine < floor or not meta.get("session_id"):
            continue
        roles = tuple(str(r) for r in meta.get("roles") or ())
        at = str(meta.get("from", ""))
        episode = CardEpisode(str(meta["session_id"]), at[:10], hit.excerpt, roles, hit.slug, at)
        out.append((cosine, episode))
    return with_newest(out, most)


def with_newest(found: list[tuple[float, CardEpisode]], most: int) -> list[CardEpisode]:
    """The first `most` episodes, the best first; but when a later conversation
    near as close to the turn (within `NEWER_MARGIN` of the last one chosen) was
    left out, it takes the last place: a value that changed is shown with its
    newest statement, not only the stale one."""
    chosen, rest = found[:most], found[most:]
    if not chosen or not rest:
        return [e for _, e in chosen]
    newest = max(e.at for _, e in chosen)
    later = [
        (c, e)
        for c, e in rest
        if e.at > newest
        and c >= chosen[-1][0] - NEWER_MARGIN
        and e.session_id not in {x.session_id for _, x in chosen}
    ]
    if later:
        chosen[-1] = max(later, key=lambda pair: pair[0])
    return [e for _, e in chosen]


def with_meaning(
    episodes: list[CardEpisode], search: SearchIndex | None, vectors: QueryVectors
) -> list[CardEpisode]:
    """The episodes with each line's cosine with the turn, where the index has
    their unit vectors."""
    if not episodes or search is None or not vectors:
        return episodes
    found = search.unit_scores(vectors, [(e.slug, None) for e in episodes])
    return [replace(e, meaning=found.get(e.slug, {})) for e in episodes]


def newest_first(episodes: list[CardEpisode]) -> list[CardEpisode]:
    """The chosen episodes in the order the card shows them: conversations
    newest first; windows of one conversation in the order the search ranked
    them (the best first)."""
    latest: dict[str, str] = {}
    for e in episodes:
        latest[e.session_id] = max(latest.get(e.session_id, ""), e.at)
    return sorted(episodes, key=lambda e: latest[e.session_id], reverse=True)


def render_episodes(episodes: list[CardEpisode], room: int) -> str:
    """As many episodes as fit in `room` characters, newest first, each its
    best lines (`CardEpisode.lines`) shown in the order they were said."""
    parts: list[str] = []
    ordered = newest_first(episodes)
    for n, episode in enumerate(ordered):
        before = ordered[:n]
        older = any(e.at > episode.at and e.session_id != episode.session_id for e in before)
        head = _head(episode, older=older)
        left = room - len(head) - len(TAIL)
        if left < MIN_ROOM - len(head):
            break
        order = {line: i for i, line in enumerate(episode.text.split("\n"))}
        chosen: list[str] = []
        for line in episode.lines():
            shown = escape(line, quote=False) + "\n"
            if len(shown) > left:
                break
            chosen.append(line)
            left -= len(shown)
        if not chosen:
            break
        said = sorted(chosen, key=lambda line: order.get(line, 0))
        block = head + "".join(escape(line, quote=False) + "\n" for line in said) + TAIL
        parts.append(block)
        room -= len(block)
    return "".join(parts)


def _head(episode: CardEpisode, older: bool = False) -> str:
    attrs = [f'session="{escape(episode.session_id)}"', f'dated="{escape(episode.dated)}"']
    notice = NOTE + (OLDER_NOTE if older else "")
    if episode.untrusted:
        attrs.append('trust="untrusted"')
        notice += UNTRUSTED_NOTE
    return f"<episode {' '.join(attrs)}>\n{notice}"
