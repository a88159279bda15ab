"""The single choke point for substrate tunables.

`resolve_substrate_tuning` reads each tunable from `memory.substrate.*`,
falling back per key to its historical `memory.v2.*` twin, which supplies the
default. Nothing else reads these keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from substrate.config import SUBSTRATE_TUNABLES, MemoryConfig


@dataclass(frozen=True)
class SubstrateTuning:
    consolidation_interval_hours: float
    consolidation_max_buffer_lines: int
    dense_weight: float
    sparse_weight: float
    bm25_k1: float
    bm25_b: float
    embedding_model: str
    sweep_enabled: bool
    fusion: str
    ingest_max_page_bytes: int


@dataclass(frozen=True)
class QdrantServer:
    url: str
    api_key: str | None
    collection: str


def resolve_qdrant_server(config: MemoryConfig) -> QdrantServer | None:
    """The configured Qdrant server, or None for the embedded store."""
    table = config.substrate.get("qdrant") or {}
    if not table.get("url"):
        return None
    return QdrantServer(table["url"], table.get("api_key"), table.get("collection", "memory_pages"))


def resolve_substrate_tuning(config: MemoryConfig) -> SubstrateTuning:
    values = {}
    for tunable in SUBSTRATE_TUNABLES:
        if tunable.name in config.substrate:
            values[tunable.name] = config.substrate[tunable.name]
        elif tunable.v2_name in config.v2:
            values[tunable.name] = config.v2[tunable.v2_name]
        else:
            values[tunable.name] = tunable.default
    return SubstrateTuning(**values)
