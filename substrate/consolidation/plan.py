"""A plan: where each entry of a batch goes, and page or view rewrites.

Both planners answer with a `Plan`; the writer applies it. A placement names
the page an entry is filed into (existing or new); the writer decides the
rest deterministically (the bullet, duplicates, continuation pages).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from substrate.consolidation.lifecycle import Intent
from substrate.intake import BufferEntry
from substrate.llm import Usage
from substrate.meaning.slots import SlotReading

Action = Literal["file", "skip"]


@dataclass(frozen=True)
class Placement:
    """`slug`: the page to file into; `title` is set when the planner means a new
    page there (`aliases`: the names it is known by). `merged`: the planner found
    the fact already on the page. `reading`: the fact's slot, for the writer's
    lifecycle decision; `intent`: a planner's own decision about the page's
    facts (checked by the writer). `related`: the pages the fact names.
    `nearby`: other pages of the same subject search found, where the writer
    also looks for the fact a cessation or a change names."""

    entry: BufferEntry
    action: Action
    slug: str | None
    decided_by: str | None
    reason: str
    title: str | None = None
    merged: bool = False
    reading: SlotReading | None = None
    intent: Intent | None = None
    related: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    nearby: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rewrite:
    """A whole new text for an existing page (LLM only), already validated, and the
    text it was made from: a page that changed since (a hand edit during the model
    call) keeps its text, and the new facts are appended to it instead."""

    slug: str
    text: str
    base: str


@dataclass
class Plan:
    placements: list[Placement]
    rewrites: list[Rewrite] = field(default_factory=list)
    views: dict[str, str] = field(default_factory=dict)  # file name -> new text
    planner: str = "deterministic"
    fallbacks: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model_seconds: float = 0.0
