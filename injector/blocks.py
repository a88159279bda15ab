"""What `Injector.assemble` returns on every tier: the same `Blocks` shape, with
the tier that answered and only the blocks that tier renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from substrate.errors import InvalidInputError
from substrate.safety import surrogate_offset

MAX_ID_BYTES = 256


@dataclass(frozen=True)
class SelectedPage:
    """A page (v2, v3) or knowledge-base note (v1) on this turn's block, and why:
    its lanes (v3), activation sources (v2) or `pkb` (v1). `dated`: what the
    page is as of (its newest current fact, YYYY-MM-DD), when known."""

    slug: str
    title: str
    lanes: tuple[str, ...]
    score: float
    reasons: dict[str, str]
    dated: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "lanes": list(self.lanes),
            "score": round(self.score, 6),
            "dated": self.dated,
        }


@dataclass(frozen=True)
class Blocks:
    """`profile` is trusted (see `trust`); `memory`, `knowledge_base` and `recall`
    are reference data. `memory` is the v3 card or the v2 block (both inside
    `<memory>` tags), `knowledge_base` the v1 block; `info` renders whenever the
    concept-page substrate is active."""

    tier: str
    memory: str = ""
    info: str = ""
    selected: list[SelectedPage] = field(default_factory=list)
    profile: str = ""
    recall: str = ""
    knowledge_base: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tier": self.tier}
        if self.tier in ("v2", "v3"):
            out["memory"] = self.memory
            out["info"] = self.info
        elif self.tier == "v1":
            out["knowledge_base"] = self.knowledge_base
        if self.tier != "off":
            out["profile"] = self.profile
        out["selected"] = [s.as_json() for s in self.selected]
        if self.recall:
            out["recall"] = self.recall
        return out


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
