"""The keys `config.toml` may hold under `[memory]`: each table's names, types and
defaults. `config_file` validates against these; `tuning` and `tiers` resolve them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ScalarType = type[bool] | type[int] | type[float] | type[str]


@dataclass(frozen=True)
class Tunable:
    """A substrate tunable: its `memory.substrate` name, its `memory.v2` twin, type, default."""

    name: str
    v2_name: str
    kind: ScalarType
    default: Any


# The v2 twin supplies the default; `embedding_model` is historically `embed_model`.
# Fusion defaults were chosen on LoCoMo, LongMemEval and XQuAD together (one half
# of each set, reported on the other; docs/search.md): min-max fusion at dense 0.3
# / BM25 0.7 (0.4 / 0.6 lost .006 of LoCoMo window R@5), the request words out of
# the BM25 query, and MiniLM's best page kept in the top 5 when its cosine
# reaches `dense_anchor_floor`.
CURATION_MODES = ("off", "review", "auto")
CURATION_RISKS = ("low", "medium", "high")  # in order: a fact applies at or under the maximum
SUBSTRATE_TUNABLES: tuple[Tunable, ...] = (
    Tunable("consolidation_interval_hours", "consolidation_interval_hours", float, 8.0),
    Tunable("consolidation_max_buffer_lines", "consolidation_max_buffer_lines", int, 100),
    Tunable("dense_weight", "dense_weight", float, 0.3),
    Tunable("sparse_weight", "sparse_weight", float, 0.7),
    Tunable("bm25_k1", "bm25_k1", float, 1.2),
    Tunable("bm25_b", "bm25_b", float, 0.75),
    Tunable("embedding_model", "embed_model", str, "all-MiniLM-L6-v2-int8"),
    Tunable("sweep_enabled", "sweep_enabled", bool, False),
    # Capture (no v2 twins): the sweep waits for a conversation to be quiet this
    # long; the retrospective reads every conversation this often (0: never).
    Tunable("sweep_idle_minutes", "sweep_idle_minutes", float, 10.0),
    Tunable("retrospective_hours", "retrospective_hours", float, 24.0),
    Tunable("fusion", "fusion", str, "minmax"),
    Tunable("ingest_max_page_bytes", "ingest_max_page_bytes", int, 256 * 1024),
    # The multilingual dense signal (no v2 twin). "off" drops it.
    Tunable("multilingual_model", "multilingual_model", str, "use-multilingual-v3"),
    Tunable("multilingual_weight", "multilingual_weight", float, 0.3),
    # Min-max guards (bench/xquad.py, bench/locomo.py): a dense signal's scores are
    # scaled by its span over the candidates but never by less than its min span, so a
    # flat list (a model that cannot read the query's language) stays near zero; BM25's
    # weight shrinks when its best chunk holds under this share of the query's ideal score.
    Tunable("dense_min_span", "dense_min_span", float, 0.3),
    Tunable("multilingual_min_span", "multilingual_min_span", float, 0.0),
    Tunable("sparse_min_coverage", "sparse_min_coverage", float, 0.15),
    # MiniLM's best page with at least this cosine is kept in the fused top 5 (a
    # question worded its own way is found by meaning alone; 0 turns it off).
    Tunable("dense_anchor_floor", "dense_anchor_floor", float, 0.3),
    # A short page cut into several chunks gives each chunk's multilingual vector its
    # own page's vector too (pages up to this many of the model's tokens; 0: never).
    Tunable("multilingual_page_context", "multilingual_page_context", int, 384),
    # Consolidation (no v2 twins): entries per run; which planner ("auto": the LLM
    # when [memory.substrate.llm] names one, else the deterministic filer); how many
    # facts a page holds before a continuation page takes the next; the search
    # step's floor (best cosine) and margin (fused score over the runner-up).
    # Curation (no v2 twins): "off", "review" (everything waits for an operator) or
    # "auto" (explicit, non-sensitive facts at or under the risk and over the
    # confidence below apply at once; the rest wait).
    Tunable("curation_mode", "curation_mode", str, "auto"),
    Tunable("auto_apply_min_confidence", "auto_apply_min_confidence", float, 0.7),
    Tunable("auto_apply_max_risk", "auto_apply_max_risk", str, "low"),
    # The conversation log keeps messages this many days (0: forever).
    Tunable("sessions_retention_days", "sessions_retention_days", float, 0.0),
    Tunable("consolidation_batch_entries", "consolidation_batch_entries", int, 50),
    Tunable("consolidation_planner", "consolidation_planner", str, "auto"),
    Tunable("consolidation_page_facts", "consolidation_page_facts", int, 24),
    Tunable("consolidation_search_floor", "consolidation_search_floor", float, 0.55),
    Tunable("consolidation_search_margin", "consolidation_search_margin", float, 0.1),
    # Filed fact bullets per chunk of the index (part of the index identity).
    Tunable("facts_per_chunk", "facts_per_chunk", int, 3),
    # The scanner's learned second opinion (USE + logistic regression) beside its
    # rules; false leaves the rules alone (no model loaded on a write).
    Tunable("scanner_detector", "scanner_detector", bool, True),
)
MULTILINGUAL_OFF = "off"

FUSION_METHODS = ("rrf", "minmax")
QDRANT_KEYS: dict[str, ScalarType] = {"url": str, "api_key": str, "collection": str}
# `[memory.substrate.llm]`: any OpenAI-compatible chat-completions endpoint. The
# key itself is never in the file: `api_key_env` names the environment variable
# the service reads it from.
LLM_KEYS: dict[str, tuple[ScalarType, Any]] = {
    "base_url": (str, None),
    "model": (str, None),
    "api_key_env": (str, "MEMORY_LLM_API_KEY"),
    "timeout_s": (float, 60.0),
    "max_output_tokens": (int, 4096),
    # An answer longer than this is not read (a model answer is a few KB).
    "max_answer_bytes": (int, 1024 * 1024),
}
PLANNERS = ("auto", "deterministic", "llm")
# `[memory.substrate.compute]`: how the embedding models run. `providers` are ONNX
# Runtime execution providers for MiniLM, in order (e.g. ["CUDAExecutionProvider",
# "CPUExecutionProvider"] where onnxruntime-gpu is installed); `batch_size` is the
# chunks embedded per batch during indexing; `concurrent` runs MiniLM and USE side
# by side during bulk indexing (one thread each; the one still busy gets every
# core when the other is done): off by default, it lost on 180-280-word pages
# (substrate/index/bulk.py). Vectors are the same either way.
COMPUTE_KEYS: dict[str, tuple[type, Any]] = {
    "providers": (list, ["CPUExecutionProvider"]),
    "batch_size": (int, 64),
    "concurrent": (bool, False),
}

TIER_SWITCHES: dict[str, tuple[type[bool], bool]] = {
    "memory.enabled": (bool, True),
    "memory.v2.enabled": (bool, True),
    "memory.v3.live": (bool, False),
}

# v3 read-path tuning (`memory.v3.*`), read only through `resolve_v3_tuning`.
V3_KEYS: dict[str, tuple[ScalarType, Any]] = {
    "card_budget_chars": (int, 2400),
    # Chosen on LoCoMo conversations 1-2 by evidence in card, reported on all ten
    # (bench/locomo.py --card): 8 pages, the k-th search hit's excerpt room
    # weighted 0.5^k, put the evidence turn's words on the card .821 of the time
    # against .415 for 16 pages at equal shares (page hit .962 against .982).
    "max_pages": (int, 8),
    "card_excerpt_decay": (float, 0.5),
    "quota_core": (int, 2),
    "quota_entity": (int, 3),
    "quota_sim": (int, 4),
    "quota_hot": (int, 2),
    "quota_edges": (int, 2),
    "quota_fresh": (int, 0),
    "backfill": (bool, True),
    "sim_floor_dense": (float, 0.25),
    "sim_floor_bm25": (float, 2.0),
    "fresh_floor_dense": (float, 0.25),
    "fresh_floor_bm25": (float, 1.5),
    "sim_floor_ml": (float, 0.2),
    "fresh_floor_ml": (float, 0.2),
    "fresh_days": (float, 30.0),
    "hot_decay": (float, 0.5),
    "edge_decay": (float, 0.98),
    "edge_threshold": (float, 1.5),
    "info_buffer_entries": (int, 10),
    "conversation_turns": (int, 8),
    "conversation_ttl_hours": (float, 24.0),
}

# The v2 engine's own keys (`memory.v2.*` beside the substrate twins), read only
# through `resolve_v2_tuning`: activation seeded by the turn's search hits and
# entity matches, spread over authored links and learned edges; the router's
# threshold and budget; the rerank by dense similarity to each page's best chunk.
# Threshold and rerank weight were chosen on LoCoMo conversations 1-2 by evidence
# in the block (bench/locomo.py --card --v2-variant; docs/tiers.md): threshold 0.4
# over 0.2 (.837 against .791: fewer, fuller pages), rerank 0.2 over 0.5 and 0.8.
V2_ENGINE_KEYS: dict[str, tuple[ScalarType, Any]] = {
    "activation_hit_weight": (float, 1.0),
    "activation_entity_weight": (float, 0.8),
    "activation_link_weight": (float, 0.5),
    "activation_edge_weight": (float, 0.3),
    "activation_decay": (float, 0.5),
    "activation_hops": (int, 2),
    "router_threshold": (float, 0.4),
    "router_max_pages": (int, 8),
    "router_budget_chars": (int, 2400),
    "rerank_weight": (float, 0.2),
    "rerank_candidates": (int, 16),
}
# Prefixes of the v2 engine's keys: an unknown key under one is a typo, refused
# (other unknown `memory.v2` keys are a legacy engine's and tolerated).
V2_ENGINE_PREFIXES = ("activation_", "router_", "rerank_")

# Input bounds (`[memory.limits]`), read only through `resolve_limits`: what one
# call may carry. Over a limit is refused before anything is stored (HTTP 413,
# one CLI line); a card message may be long, but retrieval reads only its last
# `query_bytes`.
LIMIT_KEYS: dict[str, tuple[ScalarType, Any]] = {
    "fact_bytes": (int, 32 * 1024),
    "query_bytes": (int, 8 * 1024),
    "message_bytes": (int, 256 * 1024),
    "request_bytes": (int, 1024 * 1024),
    "ingest_request_bytes": (int, 64 * 1024 * 1024),
    "info_chars": (int, 6000),
    # profile files' character budgets: an over-budget program write is refused
    "profile_user_chars": (int, 2000),
    "profile_memory_chars": (int, 3000),
    "profile_soul_chars": (int, 2000),
    "profile_shared_chars": (int, 2000),
}
