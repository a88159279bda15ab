"""Tier predicates: the only code that interprets the memory switches.

`memory.v2.enabled` defaults to true and usually stays set on v3-live
workspaces, so reading it raw misbehaves under v3; every gate therefore asks
one of these named predicates, and `memory_tier` is derived from them so the
reported tier and the runtime gates can never disagree. A test bans reading
the switches anywhere else.
"""

from __future__ import annotations

from typing import Literal

from substrate.config.config_file import MemoryConfig
from substrate.config.schema import TIER_SWITCHES

Tier = Literal["off", "v1", "v2", "v3"]


def _switch(config: MemoryConfig, dotted: str) -> bool:
    _, default = TIER_SWITCHES[dotted]
    if dotted == "memory.enabled":
        value = config.enabled
    elif dotted == "memory.v2.enabled":
        value = config.v2.get("enabled")
    else:
        value = config.v3.get("live")
    return default if value is None else bool(value)


def is_memory_enabled(config: MemoryConfig) -> bool:
    return _switch(config, "memory.enabled")


def is_memory_v3_live(config: MemoryConfig) -> bool:
    """v3 is the injected source (whatever `memory.v2.enabled` says)."""
    return is_memory_enabled(config) and _switch(config, "memory.v3.live")


def is_v3_tier_active(config: MemoryConfig) -> bool:
    """Gates v3-only features: the memory graph and its `graph_supported` bit."""
    return is_memory_v3_live(config)


def is_memory_v2_engine_enabled(config: MemoryConfig) -> bool:
    """The v2 injection engine selects pages (only when v3 is not live)."""
    return (
        is_memory_enabled(config)
        and _switch(config, "memory.v2.enabled")
        and not is_memory_v3_live(config)
    )


def uses_concept_page_memory(config: MemoryConfig) -> bool:
    """The concept-page substrate is live: write path, consolidation, `<info>`."""
    return is_memory_enabled(config) and (
        _switch(config, "memory.v3.live") or _switch(config, "memory.v2.enabled")
    )


def memory_tier(config: MemoryConfig) -> Tier:
    if not is_memory_enabled(config):
        return "off"
    if is_memory_v3_live(config):
        return "v3"
    if is_memory_v2_engine_enabled(config):
        return "v2"
    return "v1"


def tier_reason(config: MemoryConfig) -> str:
    """Which keys decided `memory_tier`, each as set in the file or by default, so a
    surprising tier (a v2-era config, a workspace without `config.toml`) explains itself."""
    tier = memory_tier(config)
    if tier == "off":
        return "memory.enabled = false"
    live = _described(config, "memory.v3.live")
    if tier == "v3":
        return live
    return f"{live}, {_described(config, 'memory.v2.enabled')}"


def _described(config: MemoryConfig, dotted: str) -> str:
    raw = config.v2.get("enabled") if dotted == "memory.v2.enabled" else config.v3.get("live")
    value = "true" if _switch(config, dotted) else "false"
    return f"{dotted} = {value}" + (" (default)" if raw is None else "")


def migration_advice(config: MemoryConfig) -> str | None:
    """The one command that moves a v1 or v2 workspace to v3; None on v3 or off."""
    if memory_tier(config) in ("v1", "v2"):
        return "run `memory config migrate --to-v3` to move to tier v3 (the lanes-and-card engine)"
    return None


def graph_unavailable_reason(config: MemoryConfig) -> tuple[str, str] | None:
    """Why the memory graph cannot be shown on this tier, and whether the fix is a
    setting (`"settings"`) or a migration (`"migrate"`); None on tier v3."""
    tier = memory_tier(config)
    if is_v3_tier_active(config):
        return None
    if tier == "off":
        return (
            "memory is turned off (memory.enabled = false in config.toml); "
            "set it to true to use the memory graph",
            "settings",
        )
    if uses_concept_page_memory(config):
        return (
            f"this workspace runs the {tier} engine; the memory graph needs tier v3: "
            "set memory.v3.live = true in config.toml (`memory config migrate` carries "
            "v2 settings over)",
            "migrate",
        )
    return (
        f"this workspace runs the {tier} engine, which has no concept pages; "
        "migrate to v3 (memory.v3.live = true) to get the memory graph",
        "migrate",
    )
