"""Owns `config.toml`: reading, validation and migration (the keys are in
`schema`, the commented template in `template`).

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

from substrate.config import keys
from substrate.config.keys import RETIRED, Key, bound_problem
from substrate.config.schema import (
    COMPUTE_KEYS,
    LIMIT_KEYS,
    LLM_KEYS,
    QDRANT_KEYS,
    SUBSTRATE_TUNABLES,
    V2_ENGINE_KEYS,
    V2_ENGINE_PREFIXES,
    V3_KEYS,
    ScalarType,
    Tunable,
)
from substrate.errors import ConfigError, InvalidInputError
from substrate.safety.safe_files import read_text_file, read_text_snapshot, write_atomic

SECTIONS = ("v2", "v3", "substrate", "limits")
MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class MemoryConfig:
    """The validated `memory` table; each section holds only keys the file set."""

    enabled: bool | None = None
    v2: Mapping[str, Any] = field(default_factory=dict)
    v3: Mapping[str, Any] = field(default_factory=dict)
    substrate: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Any] = field(default_factory=dict)
    source: str = "config.toml"


def load_config(path: Path) -> MemoryConfig:
    """Read and validate a workspace's `config.toml`; an absent file means all defaults."""
    try:
        text = read_text_file(path, MAX_CONFIG_BYTES)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 ({exc.reason})") from None
    except InvalidInputError as exc:  # a FIFO, a device, a link, a huge file
        raise ConfigError(f"cannot read the config file {exc.message}") from None
    except OSError as exc:  # no permission
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror}") from None
    if text is None:
        return MemoryConfig(source=str(path))
    return parse_config(text, source=str(path))


def parse_config(text: str, source: str = "config.toml") -> MemoryConfig:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    memory = _table(doc.get("memory", {}), "memory", source)
    for key in memory:
        if key != "enabled" and key not in SECTIONS:
            raise ConfigError(f"{source}: unknown key memory.{key}")
    config = MemoryConfig(
        enabled=_typed(memory.get("enabled"), bool, "memory.enabled", source),
        **{name: _section(memory, name, source) for name in SECTIONS},
        source=source,
    )
    _check_values(config)
    return config


def _check_values(config: MemoryConfig) -> None:
    """Each value within its key's bounds (`keys.KEYS`: ranges, choices, non-empty),
    then what spans keys: the fusion weights' sum, a planner needing a model."""
    for key, value in _set_values(config):
        problem = bound_problem(key, value)
        if problem is not None:
            raise ConfigError(f"{config.source}: {key.dotted} {problem}")
    check_weights(config)
    planner = _resolved_source(config, "consolidation_planner")
    llm = config.substrate.get("llm") or {}
    if planner[1] == "llm" and not (llm.get("base_url") and llm.get("model")):
        raise ConfigError(
            f'{config.source}: {planner[0]} = "llm" needs memory.substrate.llm.base_url and .model'
        )
    base_url = llm.get("base_url")
    if base_url and not str(base_url).startswith(("http://", "https://")):
        raise ConfigError(
            f"{config.source}: memory.substrate.llm.base_url must be an http:// or https:// URL, "
            f"got {base_url!r}"
        )


def _set_values(config: MemoryConfig) -> list[tuple[Key, Any]]:
    """(key, value) of every value the file set, a `memory.v2` twin checked as the
    substrate key it stands for."""
    found: list[tuple[Key, Any]] = []
    tables = {
        keys.V3: config.v3,
        keys.LIMITS: config.limits,
        keys.SUBSTRATE: config.substrate,
        keys.LLM: config.substrate.get("llm") or {},
        keys.QDRANT: config.substrate.get("qdrant") or {},
        keys.COMPUTE: config.substrate.get("compute") or {},
    }
    for table, values in tables.items():
        known = keys.table_keys(table)
        found += [(known[n], v) for n, v in values.items() if n in known and v is not None]
    engine = keys.table_keys(keys.V2)
    twins = {t.v2_name: t.key for t in SUBSTRATE_TUNABLES}
    for name, value in config.v2.items():
        key = engine.get(name) or twins.get(name)
        if key is not None and value is not None:
            found.append((key, value))
    return found


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
        if name == "substrate" and key in SUBTABLES:
            out[key] = _subtable(key, value, source)
            continue
        if name == "substrate" and key == "compute":
            out[key] = _compute(value, source)
            continue
        if key not in known:
            if name == "v2" and not key.startswith(V2_ENGINE_PREFIXES):
                out[key] = value
                continue
            if dotted in RETIRED:
                continue  # set by an older release: ignored
            raise ConfigError(f"{source}: unknown key {dotted}")
        out[key] = _typed(value, known[key], dotted, source)
    return out


SUBTABLES: dict[str, dict[str, ScalarType]] = {
    "qdrant": QDRANT_KEYS,
    "llm": {key: kind for key, (kind, _) in LLM_KEYS.items()},
}


def _subtable(name: str, value: Any, source: str) -> dict[str, Any]:
    """`[memory.substrate.qdrant]`, `[memory.substrate.llm]`: typed, no unknown keys."""
    table = _table(value, f"memory.substrate.{name}", source)
    known = SUBTABLES[name]
    out = {}
    for key, item in table.items():
        dotted = f"memory.substrate.{name}.{key}"
        if key not in known:
            raise ConfigError(f"{source}: unknown key {dotted}")
        out[key] = _typed(item, known[key], dotted, source)
    return out


def _compute(value: Any, source: str) -> dict[str, Any]:
    """`[memory.substrate.compute]`: `providers` a non-empty list of provider names,
    `batch_size` a positive integer, `concurrent` true or false."""
    table = _table(value, "memory.substrate.compute", source)
    out: dict[str, Any] = {}
    for key, item in table.items():
        dotted = f"memory.substrate.compute.{key}"
        if key not in COMPUTE_KEYS:
            raise ConfigError(f"{source}: unknown key {dotted}")
        if key == "providers":
            if not isinstance(item, list) or not item or not all(isinstance(p, str) for p in item):
                raise ConfigError(
                    f"{source}: {dotted} must be a non-empty list of execution provider "
                    f'names, e.g. ["CPUExecutionProvider"], got {item!r}'
                )
            out[key] = list(item)
        elif key == "batch_size":
            out[key] = _typed(item, int, dotted, source)
            if out[key] < 1:
                raise ConfigError(f"{source}: {dotted} must be at least 1, got {item}")
        else:
            out[key] = _typed(item, bool, dotted, source)
    return out


def _known_keys(section: str) -> dict[str, ScalarType]:
    if section == "substrate":
        return {t.name: t.kind for t in SUBSTRATE_TUNABLES}
    if section == "v2":
        engine = {k: kind for k, (kind, _) in V2_ENGINE_KEYS.items()}
        return {t.v2_name: t.kind for t in SUBSTRATE_TUNABLES} | engine | {"enabled": bool}
    if section == "limits":
        return {k: kind for k, (kind, _) in LIMIT_KEYS.items()}
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


def migrate_config(path: Path, *, to_v3: bool = False) -> list[str]:
    """Copy explicitly set, non-default `memory.v2` tunables into `memory.substrate`;
    with `to_v3`, also switch the workspace to tier v3 (`memory.v3.live = true`).

    Only values a user chose are copied: a v2 key left at its default (or
    absent) keeps following the default, and a key already set under
    `memory.substrate` wins. Comments and layout are preserved; a workspace
    without a `config.toml` gets one. Returns each change as one line
    (`memory.substrate.dense_weight = 0.4 (from memory.v2.dense_weight)`).
    """
    text, snap = read_text_snapshot(path)
    config = parse_config(text or "", source=str(path))
    to_copy = [
        t
        for t in SUBSTRATE_TUNABLES
        if t.v2_name in config.v2
        and config.v2[t.v2_name] != t.default
        and t.name not in config.substrate
    ]
    switch = to_v3 and config.v3.get("live") is not True
    if not to_copy and not switch:
        return []
    import tomlkit  # only this command edits TOML; keep it off every other start-up

    doc = tomlkit.parse(text or "")
    memory = doc.setdefault("memory", tomlkit.table())
    changes = []
    if switch:
        was = config.v3.get("live")
        memory.setdefault("v3", tomlkit.table())["live"] = True
        changes.append(f"memory.v3.live = true (was {'unset' if was is None else 'false'})")
    substrate = memory.setdefault("substrate", tomlkit.table()) if to_copy else None
    for t in to_copy:
        assert substrate is not None
        substrate[t.name] = config.v2[t.v2_name]
        changes.append(
            f"memory.substrate.{t.name} = {config.v2[t.v2_name]!r} (from memory.v2.{t.v2_name})"
        )
    new_text = tomlkit.dumps(doc)
    parse_config(new_text, source=str(path))
    write_atomic(path, new_text, expected=snap)
    return changes


def set_substrate_key(path: Path, name: str, value: Any) -> None:
    """Set one `[memory.substrate]` key in `config.toml` (`set_keys`)."""
    set_keys(path, "memory.substrate", {name: value})


def set_keys(path: Path, table: str, values: dict[str, Any]) -> None:
    """Set keys of one table (dotted, e.g. `memory.substrate.qdrant`) in
    `config.toml`, comments and layout kept; the result is parsed (and so
    checked) before it is written, drift-aware."""
    text, snap = read_text_snapshot(path)
    import tomlkit  # only the commands that edit TOML load it

    doc = tomlkit.parse(text)
    node: Any = doc
    for part in table.split("."):
        node = node.setdefault(part, tomlkit.table())
    for name, value in values.items():
        node[name] = value
    new_text = tomlkit.dumps(doc)
    parse_config(new_text, source=str(path))
    write_atomic(path, new_text, expected=snap)
