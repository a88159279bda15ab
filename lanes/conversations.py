"""Per-conversation state under `.substrate/conversations.json`.

What a conversation remembers between turns: the pages each recent turn
selected (the `hot` lane decays over them) and the card its last turn
rendered (the voice front door replays it without retrieval). Separate CLI
calls continue one conversation through this file, so it is bounded: a
conversation keeps its last `max_turns` turns, expires after `ttl_s` without
a turn, and only the `max_conversations` most recent are kept. Reads and
writes hold a lock and every write is atomic; a missing or unreadable file
is an empty state (it is derived data), never an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from substrate.locks import hold_lock
from substrate.safe_files import write_atomic

STATE_VERSION = 1


@dataclass(frozen=True)
class TurnRecord:
    at: float
    selected: tuple[str, ...]


@dataclass
class Conversation:
    id: str
    updated_at: float = 0.0
    turns: list[TurnRecord] = field(default_factory=list)
    frozen_card: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "updated_at": self.updated_at,
            "turns": [{"at": t.at, "selected": list(t.selected)} for t in self.turns],
            "frozen_card": self.frozen_card,
        }

    @classmethod
    def from_json(cls, conv_id: str, doc: dict[str, Any]) -> Conversation:
        turns = [
            TurnRecord(float(t["at"]), tuple(str(s) for s in t["selected"]))
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
    def __init__(self, path: Path, limits: ConversationLimits | None = None) -> None:
        self._path = path
        self._lock = path.with_name(path.name + ".lock")
        self._limits = limits or ConversationLimits()

    def load(self, conv_id: str, now: float) -> Conversation:
        """The conversation's state, or a fresh one when unknown or expired."""
        with hold_lock(self._lock, purpose="conversation state"):
            return self._live(self._read(), conv_id, now)

    def _live(self, state: dict[str, Any], conv_id: str, now: float) -> Conversation:
        doc = state.get(conv_id)
        if not isinstance(doc, dict):
            return Conversation(conv_id)
        try:
            conv = Conversation.from_json(conv_id, doc)
        except (KeyError, TypeError, ValueError):
            return Conversation(conv_id)
        if now - conv.updated_at > self._limits.ttl_s:
            return Conversation(conv_id)
        return conv

    def record_turn(
        self, conv_id: str, selected: list[str], card: dict[str, Any] | None, now: float
    ) -> Conversation:
        """Append a turn (trimmed to the limits), replace the frozen card, prune old ones."""
        limits = self._limits
        with hold_lock(self._lock, purpose="conversation state"):
            state = self._read()
            conv = self._live(state, conv_id, now)
            conv.turns = [*conv.turns, TurnRecord(now, tuple(selected))][-limits.max_turns :]
            conv.updated_at = now
            conv.frozen_card = card
            state[conv_id] = conv.as_json()
            live = {
                k: v
                for k, v in state.items()
                if isinstance(v, dict) and now - float(v.get("updated_at", 0)) <= limits.ttl_s
            }
            newest = sorted(live, key=lambda k: -float(live[k]["updated_at"]))
            kept = {k: live[k] for k in newest[: limits.max_conversations]}
            write_atomic(
                self._path,
                json.dumps({"version": STATE_VERSION, "conversations": kept}, ensure_ascii=False),
            )
        return conv

    def _read(self) -> dict[str, Any]:
        try:
            doc = json.loads(self._path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
            return {}
        conversations = doc.get("conversations")
        return dict(conversations) if isinstance(conversations, dict) else {}
