"""Episodes on the `<memory>` card: what was said in a conversation, after the
pages, in the room they leave.

Pages say what is true now; an episode is what was said then, so it is dated
and labelled as such, every line keeps its speaker ("you" for the person,
"assistant", "tool"), and one that holds anything but the person's words is
marked `trust="untrusted"` like an imported page: the assistant's or a tool's
words are not the person's facts. Escaped like pages, so conversation text can
never open or close the card's tags. On a turn about how things stand now,
a changed value is read in its newest statement first (`as_of_now`).

**The lines that answer.** An episode is a window of up to 1,500 characters;
its first lines are often an introduction, and the line that answers the turn
may be anywhere in it. So an episode's lines are ranked as a page's units are
(`fitting`): each line's multilingual cosine with the turn (the index embeds
every line of every episode, `unit_vectors`) plus the turn's words it shares,
read with its neighbours (a question passes its score to the line after it);
the lead is the best line of the chunk search ranked best, then the line
after it, the rest of that chunk by score, then the other chunks' lines.
Every episode on the card gets its lead first, then the other lines of all of
them compete by score for the room left, then what is left goes on in rank
order; an episode shows the lines it won in conversation order, `…` where
lines are skipped. A line is a whole turn, as it was said (at most 1,000
characters, `sessions.episodes`): the index embeds a long turn sentence by
sentence, and the turn scores by its nearest sentence. The windows of one
conversation a turn found are one episode. Without line vectors the scores
are the shared words alone, and with none shared an episode shows its best
chunk's first lines, as before.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from html import escape

from injector.v3.fitting import MEANING, answered, best_first, term_score
from substrate.index import Hit
from substrate.index.bm25 import tokenize
from substrate.index.excerpts import SPAN_BREAK
from substrate.index.units import split_units, unit_key
from substrate.sessions.episodes import SPEAKERS

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
GAP = "…"
SHOWN = 0.9  # a line this much of whose words the card's pages show is not repeated
# A lead longer than its episode's share of the room yields to a shorter line
# of its own that scores at least this share of it.
LEAD_WORTH = 0.5
OWN_SPEAKER = f"{SPEAKERS['user']}: "  # how the person's turns are written


@dataclass(frozen=True)
class Line:
    """One line of an episode as the card may show it: `text` with its speaker
    and time, `key` the unit key of what the index embedded, `place` its order
    in the conversation as shown, `score` how well it answers the turn, `span`
    its chunk's rank (0: the chunk search ranked best)."""

    text: str
    key: int
    place: int
    score: float
    span: int = 0


@dataclass(frozen=True)
class CardEpisode:
    session_id: str
    at: str  # ISO time of its first turn
    text: str  # its lines, "[time] speaker: words"
    speakers: tuple[str, ...]
    older: bool = False  # shown after a later conversation on a turn about now
    lines: tuple[Line, ...] = field(default=(), compare=False)  # best first; from `text` if none

    @property
    def dated(self) -> str:
        """YYYY-MM-DD of its first turn."""
        return self.at[:10]

    @property
    def untrusted(self) -> bool:
        return any(s != "user" for s in self.speakers)


def episode_lines(
    excerpt: str, terms: Collection[str] = (), meaning: dict[int, float] | None = None
) -> list[Line]:
    """An episode excerpt's lines (its chunks best first), ranked as a page's
    units are (`fitting.units_of`): the lead is the line of the best chunk that
    best answers the turn, then the line after it, the rest of that chunk by
    score, then the other chunks' lines in order. `terms` the turn's words and
    name keys, `meaning` each line's cosine with the turn by unit key."""
    near = meaning or {}
    wanted = set(terms)
    lines: list[Line] = []
    seen: set[str] = set()
    for span, body in enumerate(b for b in excerpt.split(SPAN_BREAK) if b.strip()):
        turns = [t for t in dict.fromkeys(body.split("\n")) if t.strip() and t not in seen]
        seen.update(turns)
        own = [term_score(t, wanted) + MEANING * _nearest(t, near) for t in turns]
        scores = answered(turns, own)
        for turn, score in zip(turns, scores, strict=True):
            lines.append(Line(turn, unit_key(turn), len(lines), score, span))
    return best_first(lines, lambda line: line.place)


def _nearest(turn: str, near: dict[int, float]) -> float:
    """A turn's cosine with the turn asked: its nearest sentence's, for a long
    turn the index embedded sentence by sentence (`units.split_units`)."""
    return max((near.get(unit_key(piece), 0.0) for piece in split_units(turn)), default=0.0)


def card_episodes(
    hits: list[Hit],
    floor: float,
    recall: bool = False,
    current: bool = False,
    terms: Collection[str] = (),
    meaning: dict[str, dict[int, float]] | None = None,
    linked: Collection[str] = (),
) -> list[CardEpisode]:
    """The conversations worth a card's room, best first: the episode hits whose
    best chunk's cosine reaches `floor`, the windows of one conversation joined
    into one episode (in time order, its best cosine), so two windows of one
    session never crowd out another session; `recall`: the turn asks about the
    past; `current`: it asks how things stand now (`as_of_now`). Each episode's
    lines are ranked against the turn (`episode_lines`): `terms` its words,
    `meaning` each window's line cosines by slug. `linked`: the sessions reached
    from the turn's pages by their lineage, not found by search; they follow
    the ones search found, and on a turn about now a later one is read first
    (`as_of_now`)."""
    scores = meaning or {}
    sessions: dict[str, list[tuple[float, Hit]]] = {}
    floor, most = (min(floor, RECALL_FLOOR), RECALL_MOST) if recall else (floor, MOST)
    for hit in hits:
        meta = hit.meta or {}
        cosine = max(hit.dense_score or 0.0, hit.dense_ml_score or 0.0)
        if hit.kind != "episode" or cosine < floor or not meta.get("session_id"):
            continue
        sessions.setdefault(str(meta["session_id"]), []).append((cosine, hit))
    found = [_joined(session, windows, terms, scores) for session, windows in sessions.items()]
    if current:
        return as_of_now(found, most, linked)
    return [e for _, e in found[:most]]


def _joined(
    session: str,
    windows: list[tuple[float, Hit]],
    terms: Collection[str],
    scores: dict[str, dict[int, float]],
) -> tuple[float, CardEpisode]:
    """One conversation's windows as one episode: (its best cosine, the episode).
    Its lines are ranked with the best window's chunks first and shown in time
    order."""
    ranked = sorted(windows, key=lambda pair: -pair[0])
    timed = sorted(windows, key=lambda pair: str((pair[1].meta or {}).get("from", "")))
    near = {key: c for _, hit in ranked for key, c in scores.get(hit.slug, {}).items()}
    lines = episode_lines(SPAN_BREAK.join(hit.excerpt for _, hit in ranked), terms, near)
    text = SPAN_BREAK.join(hit.excerpt for _, hit in timed)
    order = {unit_key(piece): n for n, piece in enumerate(_embedded(text))}
    shown = tuple(replace(line, place=order.get(line.key, line.place)) for line in lines)
    roles = tuple(
        dict.fromkeys(str(r) for _, hit in timed for r in (hit.meta or {}).get("roles") or ())
    )
    at = str((timed[0][1].meta or {}).get("from", ""))
    return ranked[0][0], CardEpisode(session, at, text, roles, lines=shown)


def _embedded(text: str) -> list[str]:
    """Every line of an excerpt, in its order, each once."""
    turns = (t for b in text.split(SPAN_BREAK) for t in b.split("\n") if t.strip())
    return list(dict.fromkeys(turns))


def as_of_now(
    found: list[tuple[float, CardEpisode]], most: int, linked: Collection[str] = ()
) -> list[CardEpisode]:
    """For a turn about now: the first `most` episodes, but a later conversation
    nearly as close to the turn as the last one chosen (within `NEWER_MARGIN`),
    or one that last updated a page the turn found (`linked`), takes its place,
    and conversations are shown newest first, an older one marked as older: a
    value that changed is read in its newest statement first, the stale one
    beside it, never alone."""
    chosen, rest = found[:most], found[most:]
    if chosen and rest:
        newest = max(e.at for _, e in chosen)
        taken = {e.session_id for _, e in chosen}
        near = chosen[-1][0] - NEWER_MARGIN
        later = [
            (c, e)
            for c, e in rest
            if e.at > newest and (c >= near or e.session_id in linked) and e.session_id not in taken
        ]
        if later:  # the page's own latest conversation first, then the nearest
            chosen[-1] = max(later, key=lambda pair: (pair[1].session_id in linked, pair[0]))
    latest: dict[str, str] = {}
    for _, e in chosen:
        latest[e.session_id] = max(latest.get(e.session_id, ""), e.at)
    ordered = sorted((e for _, e in chosen), key=lambda e: latest[e.session_id], reverse=True)
    first = latest[ordered[0].session_id] if ordered else ""
    return [replace(e, older=latest[e.session_id] < first) for e in ordered]


def render_episodes(episodes: list[CardEpisode], room: int, pages: str = "") -> str:
    """The episodes that fit in `room` characters (module doc): each one's lead
    first, in order, while an episode still has `MIN_ROOM`; then every other
    line by score; then what is left in rank order; each shown in
    conversation order. A line whose words the card's `pages` already show
    is left out: the card does not spend its room saying a thing twice."""
    heads = [_head(e) for e in episodes]
    shown = set(tokenize(pages))
    ranked = [
        [
            line
            for line in (list(e.lines) or episode_lines(e.text))
            if _worded(line) and not _shown(line, shown)
        ]
        for e in episodes
    ]
    picked: list[list[Line]] = [[] for _ in episodes]
    share = room // max(1, sum(1 for lines in ranked if lines))
    for i, lines in enumerate(ranked):
        if room - len(TAIL) < MIN_ROOM:
            break
        lead = _lead(lines, len(heads[i]) + len(TAIL), share, room)
        if lead is None:
            continue
        picked[i] = [lead]
        room -= len(heads[i]) + len(TAIL) + _size([lead])
    rest = [
        (i, n, line)
        for i, lines in enumerate(ranked)
        if picked[i]
        for n, line in enumerate(lines[1:])
    ]
    by_score = sorted(rest, key=lambda c: (-c[2].score, c[0], c[1]))
    for i, _, line in [*by_score, *rest]:
        if line in picked[i]:
            continue
        grown = _size([*picked[i], line]) - _size(picked[i])
        if grown <= room:
            picked[i].append(line)
            room -= grown
    return "".join(heads[i] + _body(lines) + TAIL for i, lines in enumerate(picked) if lines)


def _lead(lines: list[Line], frame: int, share: int, room: int) -> Line | None:
    """An episode's lead: its best line, unless that line is not the person's
    own and would take more than the episode's `share` of the room (an
    assistant's answer of up to 1,000 characters, lifted by the question
    before it, would keep every later episode off the card, the newer
    conversation among them); then its best line that fits the share and
    scores at least `LEAD_WORTH` of it, if it has one. The person's own long
    turn keeps the lead: it is most often the very fact asked about. Only
    lines that fit the `room` left are read; None when none does."""
    fitting = [line for line in lines if frame + _size([line]) <= room]
    if not fitting:
        return None
    if frame + _size(fitting[:1]) <= share or _own(fitting[0]):
        return fitting[0]
    worthy = LEAD_WORTH * fitting[0].score
    within = [line for line in fitting if frame + _size([line]) <= share and line.score >= worthy]
    return (within or fitting)[0]


def _body(lines: list[Line]) -> str:
    """The lines in conversation order, escaped, `…` where lines are skipped."""
    parts: list[str] = []
    before = -2
    for line in sorted(lines, key=lambda line: line.place):
        if parts and line.place != before + 1:
            parts.append(GAP)
        parts.append(escape(line.text, quote=False))
        before = line.place
    return "".join(f"{part}\n" for part in parts)


def _shown(line: Line, words: set[str]) -> bool:
    """Whether (nearly) every word of the line is on the card already."""
    said = set(tokenize(line.text.split(": ", 1)[-1]))
    return bool(said) and len(said & words) >= SHOWN * len(said)


def _own(line: Line) -> bool:
    """Whether the line is the person's own turn ("[time] you: …")."""
    return line.text.startswith("[") and line.text.split("] ", 1)[-1].startswith(OWN_SPEAKER)


def _worded(line: Line) -> bool:
    """Whether the line says anything: a turn the index cut across chunks comes
    back in pieces, and a piece such as a list's "2." says nothing on its own
    (a whole turn, with its speaker, is kept whatever it holds: "you: 42")."""
    return line.text.startswith("[") or any(c.isalpha() for c in line.text)


def _size(lines: list[Line]) -> int:
    return len(_body(lines)) if lines else 0


def _head(episode: CardEpisode) -> str:
    attrs = [f'session="{escape(episode.session_id)}"', f'dated="{escape(episode.dated)}"']
    notice = NOTE + (OLDER_NOTE if episode.older else "")
    if episode.untrusted:
        attrs.append('trust="untrusted"')
        notice += UNTRUSTED_NOTE
    return f"<episode {' '.join(attrs)}>\n{notice}"
