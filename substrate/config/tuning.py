"""The single choke point for substrate tunables.

`resolve_substrate_tuning` reads each tunable from `memory.substrate.*`,
falling back per key to its historical `memory.v2.*` twin, which supplies the
default. Nothing else reads these keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from substrate.config.config_file import MemoryConfig
from substrate.config.lanes import lanes, quota_key
from substrate.config.schema import (
    COMPUTE_KEYS,
    LIMIT_KEYS,
    SUBSTRATE_TUNABLES,
    V2_ENGINE_KEYS,
    V3_KEYS,
)


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
    sweep_idle_minutes: float
    retrospective_hours: float
    purge_interval_hours: float
    fusion: str
    ingest_max_page_bytes: int
    multilingual_model: str
    multilingual_weight: float
    dense_min_span: float
    multilingual_min_span: float
    sparse_min_coverage: float
    sparse_gate_depth: float
    dense_anchor_floor: float
    dense_quantization: str
    multilingual_page_context: int
    curation_mode: str
    auto_apply_min_confidence: float
    auto_apply_max_risk: str
    sessions_retention_days: float
    consolidation_batch_entries: int
    consolidation_planner: str
    consolidation_model_fallback: bool
    consolidation_page_facts: int
    consolidation_search_floor: float
    consolidation_search_margin: float
    facts_per_chunk: int
    scanner_detector: bool


@dataclass(frozen=True)
class V3Tuning:
    """`memory.v3.*`: lane quotas, floors and budgets of the v3 read path."""

    card_budget_chars: int
    max_pages: int
    keep_search_top: int
    backfill: bool
    sim_floor_dense: float
    sim_floor_bm25: float
    fresh_floor_dense: float
    fresh_floor_bm25: float
    sim_floor_ml: float
    fresh_floor_ml: float
    fresh_days: float
    hot_decay: float
    edge_decay: float
    episode_share: float
    episode_floor: float
    edge_threshold: float
    info_buffer_entries: int
    conversation_turns: int
    conversation_ttl_hours: float
    lane_quotas: Mapping[str, int]  # each lane's `quota_<name>` (`config.lanes`)

    def quotas(self) -> dict[str, int]:
        return dict(self.lane_quotas)

    def quota(self, lane: str) -> int:
        return self.lane_quotas.get(lane, 0)


def _with_defaults(table: Mapping[str, Any], keys: Mapping[str, tuple[Any, Any]]) -> dict[str, Any]:
    """Each key's value as set in `table` (a `config.toml` section), else its default."""
    return {
        key: table[key] if table.get(key) is not None else default
        for key, (_, default) in keys.items()
    }


def resolve_v3_tuning(config: MemoryConfig) -> V3Tuning:
    values = _with_defaults(config.v3, V3_KEYS)
    quotas = {lane.name: values.pop(quota_key(lane.name), lane.quota) for lane in lanes()}
    return V3Tuning(**values, lane_quotas=quotas)


@dataclass(frozen=True)
class V2Tuning:
    """`memory.v2.*` engine keys: activation, router and rerank of the v2 engine."""

    activation_hit_weight: float
    activation_entity_weight: float
    activation_link_weight: float
    activation_edge_weight: float
    activation_decay: float
    activation_hops: int
    router_threshold: float
    router_max_pages: int
    router_budget_chars: int
    rerank_weight: float
    rerank_candidates: int


def resolve_v2_tuning(config: MemoryConfig) -> V2Tuning:
    values = _with_defaults(config.v2, V2_ENGINE_KEYS)
    return V2Tuning(**values)


@dataclass(frozen=True)
class Compute:
    """`[memory.substrate.compute]` (see `schema.COMPUTE_KEYS`)."""

    providers: tuple[str, ...]
    batch_size: int
    concurrent: bool


def resolve_compute(config: MemoryConfig) -> Compute:
    values = _with_defaults(config.substrate.get("compute") or {}, COMPUTE_KEYS)
    return Compute(tuple(values["providers"]), values["batch_size"], values["concurrent"])


@dataclass(frozen=True)
class QdrantServer:
    url: str
    api_key: str | None
    collection: str
    tenant: str | None = None
    replication: int = 1


def resolve_qdrant_server(config: MemoryConfig) -> QdrantServer | None:
    """The configured Qdrant server, or None for the embedded store."""
    table = config.substrate.get("qdrant") or {}
    if not table.get("url"):
        return None
    return QdrantServer(
        table["url"],
        table.get("api_key"),
        table.get("collection", "memory_pages"),
        table.get("tenant"),
        int(table.get("replication", 1)),
    )


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


@dataclass(frozen=True)
class Limits:
    """`[memory.limits]`: the most one call may carry (see `schema.LIMIT_KEYS`)."""

    fact_bytes: int
    query_bytes: int
    message_bytes: int
    request_bytes: int
    ingest_request_bytes: int
    info_chars: int
    profile_user_chars: int
    profile_memory_chars: int
    profile_soul_chars: int
    profile_shared_chars: int


def resolve_limits(config: MemoryConfig) -> Limits:
    values = _with_defaults(config.limits, LIMIT_KEYS)
    return Limits(**values)
