"""Every key `config.toml` may hold, declared once: its table, type, default,
bounds and the line that explains it.

Everything else is derived from `KEYS`: the per-table key maps the parser
validates against (`schema`), the range checks (`config_file`), the
commented template `memory init` writes (`template`) and the table in
`docs/configuration.md` (a test compares it with `markdown_table()`). A key
added here is parsed, bounded, templated and documented; a key missing here
is refused as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from substrate.config.lanes import LANES, quota_key

MEMORY = "memory"
V2 = "memory.v2"
V3 = "memory.v3"
SUBSTRATE = "memory.substrate"
LLM = "memory.substrate.llm"
QDRANT = "memory.substrate.qdrant"
COMPUTE = "memory.substrate.compute"
LIMITS = "memory.limits"
TABLES = (MEMORY, V3, V2, SUBSTRATE, QDRANT, COMPUTE, LLM, LIMITS)
KIB, MIB, GIB = 1024, 1024 * 1024, 1024 * 1024 * 1024


@dataclass(frozen=True)
class Key:
    """One setting. `low`/`high`: inclusive bounds of a number; `choices`: the
    words a string may be; `nonempty`: a string that must say something; `twin`:
    the `memory.v2` key a `memory.substrate` key falls back to; `switch`: a tier
    switch (written uncommented in the template, read only by `tiers`)."""

    table: str
    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    nonempty: bool = False
    twin: str | None = None
    switch: bool = False
    example: Any = field(default=None, compare=False)  # shown for keys without a default

    @property
    def dotted(self) -> str:
        return f"{self.table}.{self.name}"


def _weight(table: str, name: str, default: float, help: str, **kw: Any) -> Key:
    return Key(table, name, float, default, help, low=0.0, high=1.0, **kw)


def _count(table: str, name: str, default: int, help: str, low: int, high: int) -> Key:
    return Key(table, name, int, default, help, low=low, high=high)


def _size(table: str, name: str, default: int, help: str, high: int, low: int = 1) -> Key:
    return Key(table, name, int, default, help, low=low, high=high)


_S = SUBSTRATE
KEYS: tuple[Key, ...] = (
    Key(MEMORY, "enabled", bool, True, 'master switch: false = tier "off"', switch=True),
    # -- the v3 read path --------------------------------------------------------
    Key(
        V3,
        "live",
        bool,
        False,
        "v3 (lanes and card) answers turns; `memory init` sets it",
        switch=True,
    ),
    _size(V3, "card_budget_chars", 2400, "size of the <memory> card", 100_000, low=200),
    _count(V3, "max_pages", 8, "pages on the card, all lanes together", 1, 64),
    _count(
        V3,
        "keep_search_top",
        5,
        "search's first pages the card always holds, when their best unit fits (0: off)",
        0,
        20,
    ),
    *(
        _count(
            V3,
            quota_key(lane.name),
            lane.quota,
            f"pages the {lane.name} lane may add: {lane.about}",
            0,
            64,
        )
        for lane in LANES
    ),
    Key(V3, "backfill", bool, True, "room the quotas leave goes to the lanes' next pages"),
    _weight(V3, "sim_floor_dense", 0.25, "a sim page needs this cosine, or"),
    Key(V3, "sim_floor_bm25", float, 2.0, "... this BM25 score, or", low=0.0, high=1000.0),
    _weight(V3, "sim_floor_ml", 0.2, "... this multilingual cosine"),
    _weight(V3, "fresh_floor_dense", 0.25, "the fresh lane's floors (cosine,"),
    Key(V3, "fresh_floor_bm25", float, 1.5, "BM25,", low=0.0, high=1000.0),
    _weight(V3, "fresh_floor_ml", 0.2, "multilingual cosine)"),
    Key(V3, "fresh_days", float, 30.0, "how far back the fresh lane looks", low=0.0, high=36500.0),
    _weight(V3, "hot_decay", 0.5, "weight of a page selected n turns ago: hot_decay ** n"),
    _weight(V3, "edge_decay", 0.98, "co-selection edge decay per recorded turn"),
    _weight(
        V3,
        "episode_share",
        0.5,
        "share of the card kept for the episodes a turn finds, before the pages fill it",
    ),
    _weight(V3, "episode_floor", 0.2, "cosine an episode needs to be on the card"),
    Key(
        V3,
        "edge_threshold",
        float,
        1.5,
        "minimum edge weight for the edges lane",
        low=0.0,
        high=1e6,
    ),
    _count(V3, "info_buffer_entries", 10, "newest buffer entries in <info>", 0, 1000),
    _count(V3, "conversation_turns", 8, "turns remembered per conversation", 1, 1000),
    Key(
        V3,
        "conversation_ttl_hours",
        float,
        24.0,
        "a conversation is forgotten after this long idle",
        low=0.0,
        high=87_600.0,
    ),
    # -- the v2 engine ---------------------------------------------------------------
    Key(V2, "enabled", bool, True, "the v2 engine answers turns while v3 is not live", switch=True),
    Key(
        V2, "activation_hit_weight", float, 1.0, "seed: the turn's search hits", low=0.0, high=10.0
    ),
    Key(
        V2,
        "activation_entity_weight",
        float,
        0.8,
        "seed: the pages the turn names",
        low=0.0,
        high=10.0,
    ),
    Key(V2, "activation_link_weight", float, 0.5, "spread over authored links", low=0.0, high=10.0),
    Key(V2, "activation_edge_weight", float, 0.3, "spread over learned edges", low=0.0, high=10.0),
    _weight(V2, "activation_decay", 0.5, "decay per hop"),
    _count(V2, "activation_hops", 2, "hops to spread", 0, 5),
    Key(
        V2,
        "router_threshold",
        float,
        0.4,
        "pages at or over this activation go on",
        low=0.0,
        high=10.0,
    ),
    _count(V2, "router_max_pages", 8, "pages on the block", 1, 64),
    _size(V2, "router_budget_chars", 2400, "size of its <memory> block", 100_000, low=200),
    _weight(V2, "rerank_weight", 0.2, "share of the dense cosine to the best chunk"),
    _count(V2, "rerank_candidates", 16, "pages the reranker reads", 1, 256),
    # -- the substrate (each falls back to its memory.v2 twin) ----------------------------
    Key(
        _S,
        "consolidation_interval_hours",
        float,
        8.0,
        "how often consolidation runs",
        low=0.01,
        high=8760.0,
        twin="consolidation_interval_hours",
    ),
    _count(
        _S,
        "consolidation_max_buffer_lines",
        100,
        "a buffer this long is consolidated at once",
        1,
        100_000,
    ),
    _weight(
        _S, "dense_weight", 0.3, "fusion weight of MiniLM (dense + sparse = 1)", twin="dense_weight"
    ),
    _weight(_S, "sparse_weight", 0.7, "fusion weight of BM25", twin="sparse_weight"),
    Key(_S, "bm25_k1", float, 1.2, "BM25 term saturation", low=0.0, high=10.0, twin="bm25_k1"),
    _weight(_S, "bm25_b", 0.75, "BM25 length normalisation", twin="bm25_b"),
    Key(
        _S,
        "embedding_model",
        str,
        "all-MiniLM-L6-v2-int8",
        "the dense model (a fastembed name or path:/folder)",
        nonempty=True,
        twin="embed_model",
    ),
    Key(
        _S,
        "sweep_enabled",
        bool,
        False,
        "capture from conversations once they are quiet (the offline extractor without a model)",
        twin="sweep_enabled",
    ),
    Key(
        _S,
        "sweep_idle_minutes",
        float,
        10.0,
        "how quiet: the sweep's debounce",
        low=0.0,
        high=10_080.0,
    ),
    Key(
        _S,
        "purge_interval_hours",
        float,
        24.0,
        "a served workspace's purge of what its derived stores kept of forgotten items (0: never)",
        low=0.0,
        high=8760.0,
    ),
    Key(
        _S,
        "retrospective_hours",
        float,
        24.0,
        "read every conversation's unread messages this often (0: never)",
        low=0.0,
        high=8760.0,
    ),
    Key(
        _S,
        "fusion",
        str,
        "minmax",
        "how the rankings combine",
        choices=("rrf", "minmax"),
        twin="fusion",
    ),
    _size(_S, "ingest_max_page_bytes", 256 * KIB, "`memory ingest` refuses larger pages", 8 * MIB),
    Key(
        _S,
        "multilingual_model",
        str,
        "use-multilingual-v3",
        'the second dense vector: the bundled USE, "off", a fastembed name or path:/folder',
        nonempty=True,
    ),
    Key(
        _S,
        "dense_quantization",
        str,
        "int8",
        "int8: scan int8 copies of the dense vectors, rescored exactly; off: float32 only "
        "(an index keeps what it was made with until rebuilt)",
        choices=("off", "int8"),
    ),
    _weight(_S, "multilingual_weight", 0.3, "its fusion weight, beside dense + sparse"),
    Key(
        _S,
        "dense_min_span",
        float,
        0.3,
        "min-max guard: a dense signal is scaled by at least this span",
        low=0.0,
        high=2.0,
    ),
    Key(
        _S,
        "multilingual_min_span",
        float,
        0.0,
        "the same for the multilingual signal",
        low=0.0,
        high=2.0,
    ),
    _weight(_S, "sparse_min_coverage", 0.15, "BM25 fades below this share of its ideal score"),
    _weight(
        _S,
        "sparse_gate_depth",
        0.5,
        "BM25 gives up to this share of its weight when its evidence is thin (0: off)",
    ),
    _weight(
        _S,
        "dense_anchor_floor",
        0.3,
        "MiniLM's best page at this cosine stays in the top 5 (0: off)",
    ),
    _count(
        _S,
        "multilingual_page_context",
        384,
        "pages up to this many tokens lend each chunk their whole-page vector (0: off)",
        0,
        100_000,
    ),
    Key(
        _S,
        "curation_mode",
        str,
        "auto",
        "off | review (an operator decides) | auto",
        choices=("off", "review", "auto"),
    ),
    _weight(
        _S, "auto_apply_min_confidence", 0.7, "a curated fact applies at this confidence or more"
    ),
    Key(
        _S,
        "auto_apply_max_risk",
        str,
        "low",
        "... and at this risk or less",
        choices=("low", "medium", "high"),
    ),
    Key(
        _S,
        "sessions_retention_days",
        float,
        0.0,
        "the conversation log keeps messages this long (0: forever)",
        low=0.0,
        high=36500.0,
    ),
    _count(_S, "consolidation_batch_entries", 50, "entries per consolidation run", 1, 10_000),
    Key(
        _S,
        "consolidation_planner",
        str,
        "auto",
        '"deterministic", "llm", or "auto" (llm when a model is set)',
        choices=("auto", "deterministic", "llm"),
    ),
    Key(
        _S,
        "consolidation_model_fallback",
        bool,
        True,
        "a model that is down, rate-limited or answering badly hands the batch to the "
        "deterministic filer (false: the run fails and files nothing)",
    ),
    _count(
        _S,
        "consolidation_page_facts",
        24,
        "facts a page takes before a continuation page",
        1,
        100_000,
    ),
    _weight(_S, "consolidation_search_floor", 0.55, "the filer's search step: best cosine, and"),
    _weight(_S, "consolidation_search_margin", 0.1, "... its lead over the runner-up"),
    _count(_S, "facts_per_chunk", 3, "filed facts per index chunk (re-indexes)", 1, 100),
    Key(
        _S, "scanner_detector", bool, True, "the scanner's learned second opinion beside its rules"
    ),
    # -- a Qdrant server instead of the embedded store ----------------------------------
    Key(
        QDRANT,
        "url",
        str,
        None,
        "a Qdrant server instead of the embedded store",
        nonempty=True,
        example="http://localhost:6333",
    ),
    Key(QDRANT, "api_key", str, None, "its API key", nonempty=True, example="..."),
    Key(QDRANT, "collection", str, "memory_pages", "the collection's name", nonempty=True),
    Key(
        QDRANT,
        "tenant",
        str,
        None,
        "share the collection, every point keyed by this id (a multi-workspace "
        "service keys each workspace by its own id)",
        nonempty=True,
        example="alice",
    ),
    _count(
        QDRANT,
        "replication",
        1,
        "copies of each shard on a Qdrant cluster (fixed when the collection is made)",
        1,
        16,
    ),
    # -- how the embedding models run ---------------------------------------------------
    Key(
        COMPUTE,
        "providers",
        list,
        ["CPUExecutionProvider"],
        "ONNX Runtime providers for MiniLM, in order",
    ),
    _count(COMPUTE, "batch_size", 64, "chunks per indexing batch", 1, 4096),
    Key(COMPUTE, "concurrent", bool, False, "MiniLM and USE side by side while bulk indexing"),
    # -- any OpenAI-compatible chat-completions endpoint ---------------------------------
    Key(
        LLM,
        "base_url",
        str,
        None,
        "the endpoint",
        nonempty=True,
        example="http://localhost:11434/v1",
    ),
    Key(LLM, "model", str, None, "the model's name", nonempty=True, example="llama3.1"),
    Key(
        LLM,
        "api_key_env",
        str,
        "MEMORY_LLM_API_KEY",
        "the environment variable holding the key",
        nonempty=True,
    ),
    Key(
        LLM,
        "timeout_s",
        float,
        60.0,
        "the whole answer must arrive within this",
        low=0.001,
        high=3600.0,
    ),
    _count(LLM, "max_output_tokens", 4096, "what the model may write", 1, 1_000_000),
    _size(
        LLM, "max_answer_bytes", MIB, "an answer longer than this is not read", 256 * MIB, low=KIB
    ),
    # -- what one call may carry ----------------------------------------------------------
    _size(LIMITS, "fact_bytes", 32 * KIB, "a remembered fact", 64 * MIB),
    _size(
        LIMITS,
        "query_bytes",
        8 * KIB,
        "a search query; also how much of a card message retrieval reads",
        MIB,
    ),
    _size(LIMITS, "message_bytes", 256 * KIB, "a card message", 64 * MIB),
    _size(LIMITS, "request_bytes", MIB, "an HTTP request body (other than ingest)", GIB),
    _size(LIMITS, "ingest_request_bytes", 64 * MIB, "an ingest request body", 4 * GIB),
    _size(LIMITS, "info_chars", 6000, "the <info> block", 1_000_000),
    _size(LIMITS, "profile_user_chars", 2000, "USER.md's budget", 1_000_000),
    _size(LIMITS, "profile_memory_chars", 3000, "MEMORY.md's budget", 1_000_000),
    _size(LIMITS, "profile_soul_chars", 2000, "SOUL.md's budget", 1_000_000),
    _size(LIMITS, "profile_shared_chars", 2000, "SHARED.md's budget", 1_000_000),
)
BY_DOTTED = {k.dotted: k for k in KEYS}
# Keys that no longer do anything: a config that still sets one loads, and the
# value is ignored (why, for `memory config` and the docs).
RETIRED = {
    "memory.v3.card_excerpt_decay": "the card fills its room with whole facts by score "
    "(docs/read-path.md), no longer by a decaying share per page",
}


def table_keys(table: str) -> dict[str, Key]:
    return {k.name: k for k in KEYS if k.table == table}


def bound_problem(key: Key, value: Any) -> str | None:
    """Why `value` is out of `key`'s bounds (None when it is within them)."""
    if key.choices and value not in key.choices:
        return f"must be one of {', '.join(key.choices)}, got {value!r}"
    if key.nonempty and isinstance(value, str) and not value.strip():
        return "must not be empty"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if key.low is not None and value < key.low:
        return f"must be at least {_shown(key.low)}, got {value}"
    if key.high is not None and value > key.high:
        return f"must be at most {_shown(key.high)}, got {value}"
    return None


def _shown(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def markdown_table() -> str:
    """The reference table of `docs/configuration.md`, generated from `KEYS`."""
    rows = ["| key | type | default | range | what it does |", "| --- | --- | --- | --- | --- |"]
    for key in KEYS:
        rows.append(
            f"| `{key.dotted}` | {key.kind.__name__} | {_default(key)} | {_range(key)} | {key.help} |"
        )
    return "\n".join(rows)


def _default(key: Key) -> str:
    return "(none)" if key.default is None else f"`{toml_value(key.default)}`"


def _range(key: Key) -> str:
    if key.choices:
        return " \\| ".join(key.choices)
    if key.low is None and key.high is None:
        return "non-empty" if key.nonempty else ""
    return f"{_shown(key.low or 0)} to {_shown(key.high) if key.high is not None else '∞'}"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)
