"""Corpus and tier figures for `memory stats` and `GET /v1/memory/stats`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from substrate.config.settings import Settings
from substrate.config.tiers import (
    is_v3_tier_active,
    memory_tier,
    migration_advice,
    tier_reason,
)
from substrate.intake.remember import read_buffer
from substrate.pages.page_index import PageIndex, load_page_index


@dataclass(frozen=True)
class Stats:
    """`tier_reason` names the keys that decided the tier; `advice` is the migration
    command on v1 and v2; `corpus` is what `pages` counts: concept pages, or the
    knowledge base's notes on v1."""

    tier: str
    tier_reason: str
    advice: str | None
    graph_supported: bool
    corpus: str
    pages: int
    buffer_entries: int
    parse_failures: int
    dangling_links: int

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def collect_stats(settings: Settings, index: PageIndex | None = None) -> Stats:
    corpus = settings.indexed_corpus().workspace
    index = index or load_page_index(corpus)
    return Stats(
        tier=memory_tier(settings.config),
        tier_reason=tier_reason(settings.config),
        advice=migration_advice(settings.config),
        graph_supported=is_v3_tier_active(settings.config),
        corpus=corpus.corpus,
        pages=len(index),
        buffer_entries=len(read_buffer(settings)),
        parse_failures=len(index.parse_failures),
        dangling_links=len(index.dangling_links),
    )
