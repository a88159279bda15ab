from __future__ import annotations

import pytest

from substrate import (
    is_memory_v3_live,
    is_v3_tier_active,
    memory_tier,
    parse_config,
    uses_concept_page_memory,
)
from substrate.config import is_memory_v2_engine_enabled


@pytest.mark.parametrize(
    ("toml", "tier", "substrate_live"),
    [
        ("", "v2", True),
        ("[memory.v3]\nlive = true\n", "v3", True),
        ("[memory.v3]\nlive = true\n[memory.v2]\nenabled = false\n", "v3", True),
        ("[memory.v2]\nenabled = false\n", "v1", False),
        ("[memory]\nenabled = false\n[memory.v3]\nlive = true\n", "off", False),
    ],
)
def test_tier_and_substrate_predicates(toml: str, tier: str, substrate_live: bool) -> None:
    config = parse_config(toml)
    assert memory_tier(config) == tier
    assert uses_concept_page_memory(config) is substrate_live
    assert is_v3_tier_active(config) is (tier == "v3")
    assert is_memory_v3_live(config) is (tier == "v3")


def test_v2_engine_is_suppressed_while_v3_is_live() -> None:
    config = parse_config("[memory.v3]\nlive = true\n[memory.v2]\nenabled = true\n")
    assert is_memory_v2_engine_enabled(config) is False
