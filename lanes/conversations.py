"""Per-conversation state: one small file per conversation under `.substrate/conversations/`.

What a conversation remembers between turns: the pages each recent turn
selected (the `hot` lane decays over them) and the card its last turn
rendered (the voice front door replays it without retrieval). Separate CLI
calls continue one conversation through these files, so they are bounded: a
conversation keeps its last `max_turns` turns, expires after `ttl_s` without
a turn, and only the `max_conversations` most recent are kept.

One file per conversation keeps a turn's cost independent of how many
conversations exist: a turn reads and replaces its own file (a few KB; a
parsed file is kept in memory and reused while its inode, size and mtime
stay the same, so a busy service stats it instead of re-reading it), and
only a conversation's first turn sweeps the folder. A file's mtime is set to
its conversation's last turn, so the sweep needs no reads. Turns of one
conversation are serialised by a lock; reads take none (writes are renames).
The state is derived and per-turn, so writes are atomic but not fsynced: a
killed process loses nothing, an OS crash may lose the last turns. A missing
or unreadable file is a fresh conversation, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanes.health import note_reset
from substrate.errors import InvalidInputError
from substrate.safety import hold_lock, read_regular_file, write_atomic

STATE_VERSION = 2
MAX_STATE_BYTES = 4 * 1024 * 1024  # a conversation's state is a few KB


@dataclass(frozen=True)
class TurnRecord:
    at: float
    selected: tuple[str, ...]  # what the `hot` lane carries forward (core-only pages left out)
    lanes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # every card page: its lanes


@dataclass
class Conversation:
    id: str
    updated_at: float = 0.0
    turns: list[TurnRecord] = field(default_factory=list)
    frozen_card: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "updated_at": self.updated_at,
            "turns": [
                {
                    "at": t.at,
                    "selected": list(t.selected),
                    "lanes": {slug: list(lanes) for slug, lanes in t.lanes.items()},
                }
                for t in self.turns
            ],
            "frozen_card": self.frozen_card,
        }

    @classmethod
    def from_json(cls, conv_id: str, doc: dict[str, Any]) -> Conversation:
        turns = [
            TurnRecord(
                float(t["at"]),
                tuple(str(s) for s in t["selected"]),
                {str(k): tuple(map(str, v)) for k, v in dict(t.get("lanes") or {}).items()},
            )
            for t in doc.get("turns", [])
        ]
        card = doc.get("frozen_card")
        return cls(conv_id, float(doc.get("updated_at", 0.0)), turns, card)


@dataclass(frozen=True)
class ConversationLimits:
    max_turns: int = 8
    ttl_s: float = 24 * 3600.0
    max_conversations: int = 500


class ConversationStore:
    def __init__(self, folder: Path, limits: ConversationLimits | None = None) -> None:
        self._folder = folder
        self._lock = folder / ".lock"
        self._limits = limits or ConversationLimits()
        self._parsed: dict[Path, tuple[tuple[int, int, int], dict[str, Any]]] = {}
        self._parsed_lock = threading.Lock()  # the service's turns share this store

    def load(self, conv_id: str, now: float) -> Conversation:
        """The conversation's state, or a fresh one when unknown or expired."""
        return self._live(self._read(conv_id), conv_id, now)

    def _live(self, doc: dict[str, Any] | None, conv_id: str, now: float) -> Conversation:
        if doc is None:
            return Conversation(conv_id)
        try:
            conv = Conversation.from_json(conv_id, doc)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            note_reset("conversation", self._path(conv_id), type(exc).__name__)
            return Conversation(conv_id)
        if now - conv.updated_at > self._limits.ttl_s:
            return Conversation(conv_id)
        return conv

    def record_turn(
        self,
        conv_id: str,
        selected: list[str],
        card: dict[str, Any] | None,
        now: float,
        lanes: dict[str, tuple[str, ...]] | None = None,
    ) -> Conversation:
        """Append a turn (trimmed to the limits) and replace the frozen card; a
        conversation's first turn also prunes expired and surplus conversations."""
        limits = self._limits
        path = self._path(conv_id)
        with hold_lock(self._lock, purpose="conversation state"):
            doc = self._read(conv_id)
            conv = self._live(doc, conv_id, now)
            conv.turns = [*conv.turns, TurnRecord(now, tuple(selected), dict(lanes or {}))][
                -limits.max_turns :
            ]
            conv.updated_at = now
            conv.frozen_card = card
            body = {"version": STATE_VERSION, "id": conv_id, **conv.as_json()}
            write_atomic(path, json.dumps(body, ensure_ascii=False), durable=False)
            os.utime(path, (now, now))
            self._remember(path, body)
            if doc is None:
                self._prune(now)
        return conv

    def recent_turns(self, now: float) -> list[tuple[str, TurnRecord]]:
        """(conversation id, turn) of every live conversation, newest turn first."""
        out: list[tuple[str, TurnRecord]] = []
        try:
            names = [e.path for e in os.scandir(self._folder) if e.name.endswith(".json")]
        except OSError:
            return []
        for name in names:
            try:
                doc = json.loads(read_regular_file(Path(name), MAX_STATE_BYTES))
                if not _is_conversation(doc):
                    continue
                conv = self._live(doc, str(doc["id"]), now)
            except (OSError, ValueError, KeyError, TypeError, InvalidInputError):
                continue
            out.extend((conv.id, turn) for turn in conv.turns)
        return sorted(out, key=lambda pair: -pair[1].at)

    def drop(self, conv_id: str) -> None:
        """The conversation's state and frozen card gone (its session forgotten:
        the voice front door must not replay a card that quoted it)."""
        with hold_lock(self._lock, purpose="conversation state"):
            self._path(conv_id).unlink(missing_ok=True)

    def forget_cards(self, phrases: list[str]) -> int:
        """Drop every frozen card that quotes one of `phrases` (words a person
        just forgot: the voice front door must not replay them); how many went."""
        wanted = [" ".join(p.split()).casefold() for p in phrases if p.strip()]
        if not wanted:
            return 0
        return self._rewrite(lambda card: any(w in _folded(card) for w in wanted))

    def drop_cards(self) -> int:
        """Every frozen card dropped (a purge: they are derived, and may quote
        anything a forget left behind before it finished)."""
        return self._rewrite(lambda card: True)

    def _rewrite(self, drops: Callable[[dict[str, Any]], bool]) -> int:
        dropped = 0
        with hold_lock(self._lock, purpose="conversation state"):
            try:
                names = [Path(e.path) for e in os.scandir(self._folder) if e.name.endswith(".json")]
            except OSError:
                return 0
            for path in names:
                try:
                    doc = json.loads(read_regular_file(path, MAX_STATE_BYTES))
                except (OSError, ValueError, InvalidInputError):
                    continue
                card = doc.get("frozen_card") if isinstance(doc, dict) else None
                if not isinstance(card, dict) or not drops(card):
                    continue
                doc["frozen_card"] = None
                write_atomic(path, json.dumps(doc, ensure_ascii=False), durable=False)
                with self._parsed_lock:
                    self._parsed.pop(path, None)
                dropped += 1
        return dropped

    def _path(self, conv_id: str) -> Path:
        digest = hashlib.blake2b(conv_id.encode(), digest_size=16).hexdigest()
        return self._folder / f"{digest}.json"

    def _read(self, conv_id: str) -> dict[str, Any] | None:
        path = self._path(conv_id)
        try:
            stamp = _stamp(os.stat(path))
            cached = self._parsed.get(path)
            if cached is not None and cached[0] == stamp:
                doc: Any = cached[1]
            else:
                doc = json.loads(read_regular_file(path, MAX_STATE_BYTES))
                if isinstance(doc, dict):
                    self._keep(path, stamp, doc)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, InvalidInputError) as exc:
            note_reset("conversation", path, type(exc).__name__)
            return None
        if not _is_conversation(doc):
            return None
        return doc if doc["id"] == conv_id else None

    def _remember(self, path: Path, doc: dict[str, Any]) -> None:
        try:
            self._keep(path, _stamp(os.stat(path)), doc)
        except OSError:
            with self._parsed_lock:
                self._parsed.pop(path, None)

    def _keep(self, path: Path, stamp: tuple[int, int, int], doc: dict[str, Any]) -> None:
        """Bounded like the folder: a dict of the most recently used conversations."""
        with self._parsed_lock:
            self._parsed.pop(path, None)
            self._parsed[path] = (stamp, doc)
            while len(self._parsed) > self._limits.max_conversations:
                del self._parsed[next(iter(self._parsed))]

    def _prune(self, now: float) -> None:
        limits = self._limits
        try:
            files = [
                (entry.stat().st_mtime, entry.path)
                for entry in os.scandir(self._folder)
                if entry.name.endswith(".json")
            ]
        except OSError:
            return
        files.sort(reverse=True)
        for rank, (mtime, name) in enumerate(files):
            if rank >= limits.max_conversations or now - mtime > limits.ttl_s:
                with contextlib.suppress(OSError):
                    os.unlink(name)


def _folded(card: Any) -> str:
    """Every text a frozen card holds, spacing and case folded."""
    if isinstance(card, str):
        return " ".join(card.split()).casefold()
    if isinstance(card, dict):
        return "\n".join(_folded(v) for v in card.values())
    if isinstance(card, list):
        return "\n".join(_folded(v) for v in card)
    return ""


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    """A replaced file (every write is a rename) has a new inode; size and mtime
    catch the rest."""
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _is_conversation(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("version") == STATE_VERSION and "id" in doc


def unreadable_conversations(folder: Path) -> list[Path]:
    """The files in `folder` that do not parse as a conversation (each reader of
    one would start that conversation empty)."""
    try:
        names = sorted(e.path for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return []
    bad = []
    for name in names:
        try:
            good = _is_conversation(json.loads(read_regular_file(Path(name), MAX_STATE_BYTES)))
        except (OSError, ValueError, InvalidInputError):
            good = False
        if not good:
            bad.append(Path(name))
    return bad
