"""Episodes on the `<memory>` card: what was said in a conversation, after the
pages, in the room they leave.

Pages say what is true now; an episode is what was said then, so it is dated
and labelled as such, every line keeps its speaker ("you" for the person,
"assistant", "tool"), and one that holds anything but the person's words is
marked `trust="untrusted"` like an imported page: the assistant's or a tool's
words are not the person's facts. Escaped like pages, so conversation text can
never open or close the card's tags. On a turn about how things stand now,
a changed value is read in its newest statement first (`as_of_now`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape

from substrate.index import Hit

NOTE = "What was said in an earlier conversation, as said then (it may no longer be true).\n"
OLDER_NOTE = "Said before the conversation above: where they differ, the later one holds.\n"
UNTRUSTED_NOTE = "Lines not from you are the assistant's or a tool's words, not facts about you.\n"
MOST = 2  # episodes a card shows
# A turn that asks about the past ("what did we decide last week?") leans on
# episodes: more of them, a floor no higher than `RECALL_FLOOR`, and at least
# `RECALL_SHARE` of the card kept for them (every turn: `memory.v3.episode_floor`
# and `episode_share`).
RECALL_MOST = 3
RECALL_FLOOR = 0.25
RECALL_SHARE = 0.5
# A turn about how things stand now: a later conversation whose cosine trails
# the last one chosen by at most this takes its place.
NEWER_MARGIN = 0.05
MIN_ROOM = 160  # characters an episode needs to show one line
TAIL = "</episode>\n"


@dataclass(frozen=True)
class CardEpisode:
    session_id: str
    at: str  # ISO time of its first turn
    text: str  # its lines, "[time] speaker: words"
    speakers: tuple[str, ...]
    older: bool = False  # shown after a later conversation on a turn about now

    @property
    def dated(self) -> str:
        """YYYY-MM-DD of its first turn."""
        return self.at[:10]

    @property
    def untrusted(self) -> bool:
        return any(s != "user" for s in self.speakers)


def card_episodes(
    hits: list[Hit], floor: float, recall: bool = False, current: bool = False
) -> list[CardEpisode]:
    """The episode hits worth a card's room, best first: those whose best chunk's
    cosine reaches `floor`; `recall`: the turn asks about the past; `current`:
    it asks how things stand now (`as_of_now`)."""
    found: list[tuple[float, CardEpisode]] = []
    floor, most = (min(floor, RECALL_FLOOR), RECALL_MOST) if recall else (floor, MOST)
    for hit in hits:
        meta = hit.meta or {}
        cosine = max(hit.dense_score or 0.0, hit.dense_ml_score or 0.0)
        if hit.kind != "episode" or cosine < floor or not meta.get("session_id"):
            continue
        roles = tuple(str(r) for r in meta.get("roles") or ())
        at = str(meta.get("from", ""))
        found.append((cosine, CardEpisode(str(meta["session_id"]), at, hit.excerpt, roles)))
    if current:
        return as_of_now(found, most)
    return [e for _, e in found[:most]]


def as_of_now(found: list[tuple[float, CardEpisode]], most: int) -> list[CardEpisode]:
    """For a turn about now: the first `most` episodes, but a later conversation
    nearly as close to the turn as the last one chosen (within `NEWER_MARGIN`)
    takes its place, and conversations are shown newest first, an older one
    marked as older: a value that changed is read in its newest statement
    first, the stale one beside it, never alone."""
    chosen, rest = found[:most], found[most:]
    if chosen and rest:
        newest = max(e.at for _, e in chosen)
        taken = {e.session_id for _, e in chosen}
        later = [
            (c, e)
            for c, e in rest
            if e.at > newest and c >= chosen[-1][0] - NEWER_MARGIN and e.session_id not in taken
        ]
        if later:
            chosen[-1] = max(later, key=lambda pair: pair[0])
    latest: dict[str, str] = {}
    for _, e in chosen:
        latest[e.session_id] = max(latest.get(e.session_id, ""), e.at)
    ordered = sorted((e for _, e in chosen), key=lambda e: latest[e.session_id], reverse=True)
    first = latest[ordered[0].session_id] if ordered else ""
    return [replace(e, older=latest[e.session_id] < first) for e in ordered]


def render_episodes(episodes: list[CardEpisode], room: int) -> str:
    """As many episodes as fit in `room` characters, each cut to whole lines."""
    parts: list[str] = []
    for episode in episodes:
        head = _head(episode)
        left = room - len(head) - len(TAIL)
        if left < MIN_ROOM - len(head):
            break
        lines: list[str] = []
        for line in episode.text.split("\n"):
            shown = escape(line, quote=False) + "\n"
            if len(shown) > left:
                break
            lines.append(shown)
            left -= len(shown)
        if not lines:
            break
        block = head + "".join(lines) + TAIL
        parts.append(block)
        room -= len(block)
    return "".join(parts)


def _head(episode: CardEpisode) -> str:
    attrs = [f'session="{escape(episode.session_id)}"', f'dated="{escape(episode.dated)}"']
    notice = NOTE + (OLDER_NOTE if episode.older else "")
    if episode.untrusted:
        attrs.append('trust="untrusted"')
        notice += UNTRUSTED_NOTE
    return f"<episode {' '.join(attrs)}>\n{notice}"
