"""Owns `config.toml`: its schema, defaults, validation, template and migration.

Only the composition root (`service/`) calls `load_config`; everything else
receives the resulting `MemoryConfig`. Tier switches (`memory.v2.enabled`,
`memory.v3.live`) are parsed here but only `substrate.config.tiers` interprets them,
and substrate tunables are only read through `resolve_substrate_tuning`
(`substrate.config.tuning`).

Unknown keys under `memory.substrate` and `memory.v3` are errors (they are
ours, and a typo would silently change nothing); unknown keys under
`memory.v2` are tolerated because the legacy v2 engine has keys of its own.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from substrate.errors import ConfigError
from substrate.safety.safe_files import read_text_snapshot, write_atomic

ScalarType = type[bool] | type[int] | type[float] | type[str]


@dataclass(frozen=True)
class Tunable:
    """A substrate tunable: its `memory.substrate` name, its `memory.v2` twin, type, default."""

    name: str
    v2_name: str
    kind: ScalarType
    default: Any


# The v2 twin supplies the default; `embedding_model` is historically `embed_model`.
# Fusion defaults were chosen on LoCoMo (bench/locomo.py, all 10 conversations):
# min-max fusion at dense 0.3 / BM25 0.7 beat RRF at every weight, BM25 alone
# and dense alone on recall@5/10 and MRR; the v2 engine's 0.7/0.3 RRF was
# below BM25 alone there.
SUBSTRATE_TUNABLES: tuple[Tunable, ...] = (
    Tunable("consolidation_interval_hours", "consolidation_interval_hours", float, 8.0),
    Tunable("consolidation_max_buffer_lines", "consolidation_max_buffer_lines", int, 100),
    Tunable("dense_weight", "dense_weight", float, 0.3),
    Tunable("sparse_weight", "sparse_weight", float, 0.7),
    Tunable("bm25_k1", "bm25_k1", float, 1.2),
    Tunable("bm25_b", "bm25_b", float, 0.75),
    Tunable("embedding_model", "embed_model", str, "all-MiniLM-L6-v2-int8"),
    Tunable("sweep_enabled", "sweep_enabled", bool, False),
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
    # A short page cut into several chunks gives each chunk's multilingual vector its
    # own page's vector too (pages up to this many of the model's tokens; 0: never).
    Tunable("multilingual_page_context", "multilingual_page_context", int, 384),
)
MULTILINGUAL_OFF = "off"

FUSION_METHODS = ("rrf", "minmax")
QDRANT_KEYS: dict[str, ScalarType] = {"url": str, "api_key": str, "collection": str}

TIER_SWITCHES: dict[str, tuple[type[bool], bool]] = {
    "memory.enabled": (bool, True),
    "memory.v2.enabled": (bool, True),
    "memory.v3.live": (bool, False),
}

# v3 read-path tuning (`memory.v3.*`), read only through `resolve_v3_tuning`.
V3_KEYS: dict[str, tuple[ScalarType, Any]] = {
    "card_budget_chars": (int, 2400),
    "max_pages": (int, 16),
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


@dataclass(frozen=True)
class MemoryConfig:
    """The validated `memory` table; each section holds only keys the file set."""

    enabled: bool | None = None
    v2: Mapping[str, Any] = field(default_factory=dict)
    v3: Mapping[str, Any] = field(default_factory=dict)
    substrate: Mapping[str, Any] = field(default_factory=dict)
    source: str = "config.toml"


def load_config(path: Path) -> MemoryConfig:
    """Read and validate a workspace's `config.toml`; an absent file means all defaults."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return MemoryConfig(source=str(path))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 ({exc.reason})") from None
    return parse_config(text, source=str(path))


def parse_config(text: str, source: str = "config.toml") -> MemoryConfig:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    memory = _table(doc.get("memory", {}), "memory", source)
    for key in memory:
        if key not in ("enabled", "v2", "v3", "substrate"):
            raise ConfigError(f"{source}: unknown key memory.{key}")
    config = MemoryConfig(
        enabled=_typed(memory.get("enabled"), bool, "memory.enabled", source),
        v2=_section(memory, "v2", source),
        v3=_section(memory, "v3", source),
        substrate=_section(memory, "substrate", source),
        source=source,
    )
    check_weights(config)
    fusion = _resolved_source(config, "fusion")
    if fusion[1] not in FUSION_METHODS:
        raise ConfigError(
            f"{source}: {fusion[0]} must be one of {', '.join(FUSION_METHODS)}, got {fusion[1]!r}"
        )
    for name in (
        "dense_min_span",
        "multilingual_min_span",
        "sparse_min_coverage",
        "multilingual_page_context",
    ):
        key, value = _resolved_source(config, name)
        if value < 0:
            raise ConfigError(f"{source}: {key} must not be negative, got {value}")
    for key, value in config.v3.items():
        if key in V3_KEYS and value is not None and value < 0:
            raise ConfigError(f"{source}: memory.v3.{key} must not be negative, got {value}")
    cap = _resolved_source(config, "ingest_max_page_bytes")
    if cap[1] < 1:
        raise ConfigError(f"{source}: {cap[0]} must be a positive number of bytes, got {cap[1]}")
    return config


def _table(value: Any, name: str, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: {name} must be a table, got {type(value).__name__}")
    return value


def _section(memory: dict[str, Any], name: str, source: str) -> dict[str, Any]:
    table = _table(memory.get(name, {}), f"memory.{name}", source)
    known = _known_keys(name)
    out: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"memory.{name}.{key}"
        if name == "substrate" and key == "qdrant":
            out[key] = _qdrant_table(value, source)
            continue
        if key not in known:
            if name == "v2":
                out[key] = value
                continue
            raise ConfigError(f"{source}: unknown key {dotted}")
        out[key] = _typed(value, known[key], dotted, source)
    return out


def _qdrant_table(value: Any, source: str) -> dict[str, str]:
    table = _table(value, "memory.substrate.qdrant", source)
    out = {}
    for key, item in table.items():
        if key not in QDRANT_KEYS:
            raise ConfigError(f"{source}: unknown key memory.substrate.qdrant.{key}")
        out[key] = _typed(item, QDRANT_KEYS[key], f"memory.substrate.qdrant.{key}", source)
    return out


def _known_keys(section: str) -> dict[str, ScalarType]:
    if section == "substrate":
        return {t.name: t.kind for t in SUBSTRATE_TUNABLES}
    if section == "v2":
        return {t.v2_name: t.kind for t in SUBSTRATE_TUNABLES} | {"enabled": bool}
    return {k: kind for k, (kind, _) in V3_KEYS.items()} | {"live": bool}


def _typed(value: Any, kind: ScalarType, dotted: str, source: str) -> Any:
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    # bool is a subclass of int: `true` must not pass as a number.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ConfigError(f"{source}: {dotted} must be {_kind_name(kind)}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{source}: {dotted} must be a finite number, got {value!r}")
    return value


def _kind_name(kind: ScalarType) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}[kind]


def check_weights(config: MemoryConfig) -> None:
    """Dense + sparse weights must sum to 1, as resolved and within the v2 engine's pair.
    The multilingual weight is added beside that pair; only with a positive one may
    the resolved pair be 0 + 0 (the multilingual signal alone)."""
    ml_key, ml = _resolved_source(config, "multilingual_weight")
    if not 0.0 <= ml <= 1.0:
        raise ConfigError(f"{config.source}: {ml_key} must be between 0 and 1, got {ml}")
    pairs = [
        (_resolved_source(config, "dense_weight"), _resolved_source(config, "sparse_weight")),
        (_v2_source(config, "dense_weight"), _v2_source(config, "sparse_weight")),
    ]
    for i, ((dense_key, dense), (sparse_key, sparse)) in enumerate(pairs):
        for key, value in ((dense_key, dense), (sparse_key, sparse)):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{config.source}: {key} must be between 0 and 1, got {value}")
        multilingual_alone = i == 0 and dense == sparse == 0.0 and ml > 0
        if abs(dense + sparse - 1.0) > 1e-6 and not multilingual_alone:
            raise ConfigError(
                f"{config.source}: {dense_key} ({dense}) + {sparse_key} ({sparse}) "
                f"must sum to 1, got {dense + sparse:.6g}"
            )


def _tunable(name: str) -> Tunable:
    return next(t for t in SUBSTRATE_TUNABLES if t.name == name)


def _v2_source(config: MemoryConfig, name: str) -> tuple[str, Any]:
    tunable = _tunable(name)
    if tunable.v2_name in config.v2:
        return f"memory.v2.{tunable.v2_name}", config.v2[tunable.v2_name]
    return f"memory.v2.{tunable.v2_name} (default)", tunable.default


def _resolved_source(config: MemoryConfig, name: str) -> tuple[str, Any]:
    """Which key supplies tunable `name`, and its value: substrate, else its v2 twin."""
    if name in config.substrate:
        return f"memory.substrate.{name}", config.substrate[name]
    return _v2_source(config, name)


def migrate_config(path: Path) -> list[str]:
    """Copy explicitly set, non-default `memory.v2` tunables into `memory.substrate`.

    Only values a user chose are copied: a v2 key left at its default (or
    absent) keeps following the default, and a key already set under
    `memory.substrate` wins. Comments and layout are preserved. Returns the
    dotted substrate keys that were written.
    """
    text, snap = read_text_snapshot(path)
    config = parse_config(text, source=str(path))
    to_copy = [
        t
        for t in SUBSTRATE_TUNABLES
        if t.v2_name in config.v2
        and config.v2[t.v2_name] != t.default
        and t.name not in config.substrate
    ]
    if not to_copy:
        return []
    import tomlkit  # only this command edits TOML; keep it off every other start-up

    doc = tomlkit.parse(text)
    memory = doc.setdefault("memory", tomlkit.table())
    substrate = memory.setdefault("substrate", tomlkit.table())
    for t in to_copy:
        substrate[t.name] = config.v2[t.v2_name]
    new_text = tomlkit.dumps(doc)
    parse_config(new_text, source=str(path))
    write_atomic(path, new_text, expected=snap)
    return [f"memory.substrate.{t.name}" for t in to_copy]


CONFIG_TEMPLATE = """\
# Memory workspace configuration. Every key is optional: an absent key takes
# the default shown in its comment.

[memory]
# Master switch. false = tier "off": nothing is injected or captured.
enabled = true

[memory.v3]
# v3 is the lane-based read path and the tier new workspaces start on.
live = true
# card_budget_chars = 2400     # size of the <memory> card
# max_pages = 16               # pages on the card, all lanes together (the budget cuts first)
# quota_core = 2               # per-lane caps: core, entity, sim, hot, edges, fresh
# quota_entity = 3
# quota_sim = 4
# quota_hot = 2
# quota_edges = 2
# quota_fresh = 0              # off: on LoCoMo it only displaced relevant pages
# backfill = true              # room the quotas leave goes to the lanes' next pages
# sim_floor_dense = 0.25       # a sim page needs this cosine or this BM25 score
# sim_floor_bm25 = 2.0
# fresh_floor_dense = 0.25     # the fresh lane's (lower) relevance floors
# fresh_floor_bm25 = 1.5
# sim_floor_ml = 0.2           # ... or this multilingual cosine (dense_ml)
# fresh_floor_ml = 0.2
# fresh_days = 30.0            # how far back the fresh lane looks
# hot_decay = 0.5              # weight of a page selected n turns ago: hot_decay ** n
# edge_decay = 0.98            # co-selection edge decay per recorded turn
# edge_threshold = 1.5         # minimum edge weight for the edges lane
# info_buffer_entries = 10     # newest buffer entries in <info>
# conversation_turns = 8       # turns remembered per conversation
# conversation_ttl_hours = 24.0

[memory.v2]
# The legacy v2 engine. Its tunables below are the historical defaults for
# [memory.substrate]; `memory config migrate` copies values you set here.
enabled = true

[memory.substrate]
# Substrate tunables. Each key falls back to its memory.v2 twin.
# dense_weight + sparse_weight must sum to 1.
# dense_weight = 0.3
# sparse_weight = 0.7
# bm25_k1 = 1.2
# bm25_b = 0.75
# embedding_model = "all-MiniLM-L6-v2-int8"   # v2 twin: embed_model
# consolidation_interval_hours = 8.0
# consolidation_max_buffer_lines = 100
# sweep_enabled = false
# fusion = "minmax"       # how dense and BM25 rankings combine: "minmax" or "rrf"
# multilingual_model = "use-multilingual-v3"   # second dense vector (dense_ml): the bundled
#                         # USE, "off", a fastembed model name or "path:/folder"
# multilingual_weight = 0.3   # its fusion weight, beside dense + sparse
# dense_min_span = 0.3        # min-max guards: scale a dense signal by at least this
# multilingual_min_span = 0.0 #   cosine span, so a model blind to the query's language
# sparse_min_coverage = 0.15  #   stays quiet; BM25 fades below this share of its ideal score
# multilingual_page_context = 384   # a page of several chunks but at most this many
#                         # multilingual tokens adds its whole-page vector to each
#                         # chunk's dense_ml vector; 0 turns it off (re-indexes)
# ingest_max_page_bytes = 262144   # `memory ingest` refuses larger pages
#
# [memory.substrate.qdrant]
# url = "http://localhost:6333"   # a Qdrant server instead of the embedded store
# api_key = "..."
# collection = "memory_pages"
"""
