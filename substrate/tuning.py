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
