"""The keys `config.toml` may hold under `[memory]`, per table, derived from the
one declaration of each (`keys.KEYS`): `config_file` validates against these;
`tuning` and `tiers` resolve them.

Fusion defaults were chosen on LoCoMo, LongMemEval and XQuAD together (one half
of each set, reported on the other; docs/search.md): min-max fusion at dense 0.3
/ BM25 0.7, the request words out of the BM25 query, and MiniLM's best page kept
in the top 5 when its cosine reaches `dense_anchor_floor`. The card's defaults
(8 pages, excerpt room 0.5^k) were chosen on LoCoMo conversations 1-2 by
evidence in card (docs/read-path.md); the v2 engine's threshold 0.4 and rerank
0.2 likewise (docs/tiers.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from substrate.config import keys
from substrate.config.keys import Key

ScalarType = type[bool] | type[int] | type[float] | type[str]


@dataclass(frozen=True)
class Tunable:
    """A substrate tunable: its `memory.substrate` name, its `memory.v2` twin, type, default."""

    name: str
    v2_name: str
    kind: ScalarType
    default: Any
    key: Key


def _pairs(table: str, *, switches: bool = False) -> dict[str, tuple[Any, Any]]:
    return {
        k.name: (k.kind, k.default) for k in keys.KEYS if k.table == table and k.switch == switches
    }


SUBSTRATE_TUNABLES: tuple[Tunable, ...] = tuple(
    Tunable(k.name, k.twin or k.name, k.kind, k.default, k)
    for k in keys.KEYS
    if k.table == keys.SUBSTRATE
)
V3_KEYS: dict[str, tuple[Any, Any]] = _pairs(keys.V3)
V2_ENGINE_KEYS: dict[str, tuple[Any, Any]] = _pairs(keys.V2)
LIMIT_KEYS: dict[str, tuple[Any, Any]] = _pairs(keys.LIMITS)
LLM_KEYS: dict[str, tuple[Any, Any]] = _pairs(keys.LLM)
QDRANT_KEYS: dict[str, ScalarType] = {k: kind for k, (kind, _) in _pairs(keys.QDRANT).items()}
COMPUTE_KEYS: dict[str, tuple[Any, Any]] = _pairs(keys.COMPUTE)
TIER_SWITCHES: dict[str, tuple[type[bool], bool]] = {
    k.dotted: (bool, k.default) for k in keys.KEYS if k.switch
}
# Prefixes of the v2 engine's keys: an unknown key under one is a typo, refused
# (other unknown `memory.v2` keys are a legacy engine's and tolerated).
V2_ENGINE_PREFIXES = ("activation_", "router_", "rerank_")
MULTILINGUAL_OFF = "off"


def _choices(dotted: str) -> tuple[str, ...]:
    return keys.BY_DOTTED[dotted].choices


CURATION_MODES = _choices("memory.substrate.curation_mode")
CURATION_RISKS = _choices("memory.substrate.auto_apply_max_risk")  # in order: low first
FUSION_METHODS = _choices("memory.substrate.fusion")
PLANNERS = _choices("memory.substrate.consolidation_planner")
