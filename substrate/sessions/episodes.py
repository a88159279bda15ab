"""Episodes: a session's turns cut into windows, for searching what was said by
meaning.

The pages hold what is true now; the log holds what was said, when, and by
whom, and until now only keyword recall reached it. An episode is a window of
consecutive turns of one session (each line its speaker, time and words,
every turn cut to `TURN_CHARS`), closed when it would pass `WINDOW_CHARS` (the
embedding model reads about that much), so a new turn changes only the last
window of its session and the rest keep their content hash. The index embeds
episodes beside the pages (`kind: episode`); this module only cuts them.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from substrate.sessions.log import LoggedMessage, SessionLog

PREFIX = "episode/"
WINDOW_CHARS = 1500
TURN_CHARS = 1000
SPEAKERS = {"user": "you", "assistant": "assistant", "tool": "tool", "system": "system"}
CUTS_KEPT = 256  # sessions whose cut a `WindowFinder` keeps
SESSIONS_READ = 10_000  # the newest sessions whose turns are indexed (the log's listing cap)


@dataclass(frozen=True)
class Episode:
    """`slug` is stable for a window (its session and first message); `roles`:
    who speaks in it."""

    slug: str
    session_id: str
    first_id: int
    last_id: int
    start: float
    end: float
    roles: tuple[str, ...]
    text: str

    @property
    def title(self) -> str:
        return f"Conversation {self.session_id} ({_day(self.start)})"

    def meta(self) -> dict[str, str | int | list[str]]:
        return {
            "session_id": self.session_id,
            "from": _iso(self.start),
            "to": _iso(self.end),
            "first_message": self.first_id,
            "last_message": self.last_id,
            "roles": list(self.roles),
        }


def episodes_of(messages: Sequence[LoggedMessage]) -> list[Episode]:
    """One session's messages (oldest first) as episodes."""
    out: list[Episode] = []
    window: list[tuple[LoggedMessage, str]] = []
    size = 0
    for message in messages:
        line = _line(message)
        if window and size + len(line) > WINDOW_CHARS:
            out.append(_episode(window))
            window, size = [], 0
        window.append((message, line))
        size += len(line) + 1
    if window:
        out.append(_episode(window))
    return out


class LoggedEpisodes:
    """Every episode of the log's sessions, newest sessions first; a session's
    messages are read again only when its message count moved (a maintain runs
    after every filing run: it must not read the whole log each time) or a
    forget changed its words (`forget`)."""

    def __init__(self) -> None:
        self._cut: dict[str, tuple[int, list[Episode]]] = {}
        self._lock = threading.Lock()

    def forget(self, sessions: Iterable[str]) -> None:
        """These sessions' messages changed without their count moving (a
        forgotten fact's words cut out of them): cut them again."""
        with self._lock:
            for session in sessions:
                self._cut.pop(session, None)

    def of_session(self, log: SessionLog, session_id: str) -> list[Episode]:
        """One session's episodes as its messages are now (cut again when a forget
        changed them)."""
        with self._lock:
            held = self._cut.get(session_id)
        if held is not None:
            return held[1]
        messages = log.messages(session_id)
        cut = episodes_of(messages)
        with self._lock:
            self._cut[session_id] = (len(messages), cut)
        return cut

    def __call__(self, log: SessionLog) -> Iterator[Episode]:
        rows = log.sessions(SESSIONS_READ)
        for row in rows:
            with self._lock:
                held = self._cut.get(row.id)
            if held is None or held[0] != row.messages:
                held = (row.messages, episodes_of(log.messages(row.id)))
                with self._lock:
                    self._cut[row.id] = held
            yield from held[1]
        listed = {row.id for row in rows}
        with self._lock:
            for gone in [s for s in self._cut if s not in listed]:
                del self._cut[gone]


@dataclass(frozen=True)
class Window:
    """Where an episode stands in the log: its slug, session and message span."""

    slug: str
    session_id: str
    first_id: int
    last_id: int


class WindowFinder:
    """Which episode of one log holds a logged message (a captured fact's
    lineage), cut as the index cut it. A session is cut once per message
    count, since a turn may ask this of the conversation it is in; a cut keeps
    ids and slugs, no words, for the `CUTS_KEPT` sessions asked last. A forget
    that cuts words out without changing the count may shift a window's
    start: its old slug then names no indexed episode, and nothing is reached."""

    def __init__(self, log: SessionLog) -> None:
        self._log = log
        self._cuts: OrderedDict[str, tuple[int, tuple[Window, ...]]] = OrderedDict()
        self._lock = threading.Lock()

    def holding(self, message_ids: Iterable[int]) -> Window | None:
        """The window of the newest of these messages still logged; None when
        none is (forgotten, pruned)."""
        for message_id in sorted(message_ids, reverse=True):
            session = self._log.session_of(message_id)
            row = self._log.session(session) if session is not None else None
            if row is None:
                continue
            for window in self._windows(row.id, row.messages):
                if window.first_id <= message_id <= window.last_id:
                    return window
        return None

    def _windows(self, session_id: str, count: int) -> tuple[Window, ...]:
        with self._lock:
            held = self._cuts.get(session_id)
            if held is not None and held[0] == count:
                self._cuts.move_to_end(session_id)
                return held[1]
        cut = tuple(
            Window(e.slug, e.session_id, e.first_id, e.last_id)
            for e in episodes_of(self._log.messages(session_id))
        )
        with self._lock:
            self._cuts[session_id] = (count, cut)
            self._cuts.move_to_end(session_id)
            while len(self._cuts) > CUTS_KEPT:
                self._cuts.popitem(last=False)
        return cut


def session_of(slug: str) -> str | None:
    """The session key an episode's slug names (None for any other slug)."""
    if not slug.startswith(PREFIX):
        return None
    return slug[len(PREFIX) :].split("/", 1)[0]


def session_key(session_id: str) -> str:
    """A session id as one slug segment, whatever characters it holds."""
    return hashlib.sha1(session_id.encode("utf-8")).hexdigest()[:16]


def _episode(window: list[tuple[LoggedMessage, str]]) -> Episode:
    first, last = window[0][0], window[-1][0]
    roles = tuple(dict.fromkeys(m.role for m, _ in window))
    return Episode(
        slug=f"{PREFIX}{session_key(first.session_id)}/{first.id}",
        session_id=first.session_id,
        first_id=first.id,
        last_id=last.id,
        start=first.at,
        end=last.at,
        roles=roles,
        text="\n".join(line for _, line in window),
    )


def _line(message: LoggedMessage) -> str:
    words = " ".join(message.text.split())
    if len(words) > TURN_CHARS:
        words = words[:TURN_CHARS].rsplit(" ", 1)[0] + " …"
    speaker = SPEAKERS.get(message.role, message.role)
    return f"[{_minute(message.at)}] {speaker}: {words}"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d")


def _minute(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")
