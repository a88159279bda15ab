"""Config: `config.toml` (schema, defaults, validation, template, migration), the
tier predicates, substrate and v3 tuning, the workspace's paths and `Settings`.

Everything here describes *what the workspace is and how it is tuned*; nothing
here reads pages, the buffer or the index. The tier switches are interpreted
only by `tiers` and tunables only resolved by `tuning`. It imports only
`safety` (config and workspace files are written through the atomic writer)
and must not import `pages`, `intake`, `index` or anything above them.
"""

from substrate.config.config_file import (
    MemoryConfig,
    load_config,
    migrate_config,
    parse_config,
    set_substrate_key,
)
from substrate.config.cpus import usable_cpus
from substrate.config.settings import Settings
from substrate.config.tiers import (
    graph_unavailable_reason,
    is_memory_enabled,
    is_memory_v2_engine_enabled,
    is_memory_v3_live,
    is_v3_tier_active,
    memory_tier,
    migration_advice,
    tier_reason,
    uses_concept_page_memory,
)
from substrate.config.tuning import (
    SubstrateTuning,
    V3Tuning,
    resolve_substrate_tuning,
    resolve_v3_tuning,
)
from substrate.config.workspace import VIEW_FILES, Workspace, init_workspace, open_workspace

__all__ = [
    "VIEW_FILES",
    "MemoryConfig",
    "Settings",
    "SubstrateTuning",
    "V3Tuning",
    "Workspace",
    "graph_unavailable_reason",
    "init_workspace",
    "is_memory_enabled",
    "is_memory_v2_engine_enabled",
    "is_memory_v3_live",
    "is_v3_tier_active",
    "load_config",
    "memory_tier",
    "migrate_config",
    "migration_advice",
    "open_workspace",
    "parse_config",
    "resolve_substrate_tuning",
    "resolve_v3_tuning",
    "set_substrate_key",
    "tier_reason",
    "usable_cpus",
    "uses_concept_page_memory",
]
