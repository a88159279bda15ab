from __future__ import annotations

import re
from pathlib import Path

import pytest

from substrate import (
    ConfigError,
    load_config,
    memory_tier,
    migrate_config,
    parse_config,
    resolve_substrate_tuning,
)
from substrate.config.template import CONFIG_TEMPLATE


def test_absent_file_and_partial_files_take_defaults(tmp_path: Path) -> None:
    tuning = resolve_substrate_tuning(load_config(tmp_path / "missing.toml"))
    assert (tuning.dense_weight, tuning.sparse_weight, tuning.fusion) == (0.3, 0.7, "minmax")
    assert resolve_substrate_tuning(parse_config("[memory.v3]\nlive = true\n")).bm25_k1 == 1.2


def test_template_is_valid_and_on_v3() -> None:
    from substrate import memory_tier

    assert memory_tier(parse_config(CONFIG_TEMPLATE)) == "v3"


def test_the_template_lists_every_v2_engine_key_at_its_default() -> None:
    import tomllib

    from substrate.config.schema import V2_ENGINE_KEYS

    section = CONFIG_TEMPLATE.split("[memory.v2]\n", 1)[1].split("\n[", 1)[0]
    lines = [line[2:].split("#")[0] for line in section.splitlines() if line.startswith("# ")]
    listed = tomllib.loads("\n".join(line for line in lines if "=" in line))
    assert listed == {key: default for key, (_, default) in V2_ENGINE_KEYS.items()}


def test_substrate_keys_fall_back_per_key_to_their_v2_twin() -> None:
    config = parse_config(
        "[memory.v2]\nbm25_k1 = 1.5\nembed_model = 'custom'\nbm25_b = 0.5\n"
        "[memory.substrate]\nbm25_b = 0.9\n"
    )
    tuning = resolve_substrate_tuning(config)
    assert tuning.bm25_k1 == 1.5
    assert tuning.embedding_model == "custom"
    assert tuning.bm25_b == 0.9


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[memory.substrate]\ndense_weight = 0.8\n",
            "memory.substrate.dense_weight (0.8) + memory.v2.sparse_weight (default) (0.7) must sum to 1",
        ),
        (
            "[memory.substrate]\ndense_weight = 0.5\nsparse_weight = 0.6\n",
            "memory.substrate.dense_weight (0.5) + memory.substrate.sparse_weight (0.6) must sum to 1",
        ),
        (
            "[memory.v2]\ndense_weight = 0.9\nsparse_weight = 0.3\n"
            "[memory.substrate]\ndense_weight = 0.7\nsparse_weight = 0.3\n",
            "memory.v2.dense_weight (0.9) + memory.v2.sparse_weight (0.3) must sum to 1",
        ),
    ],
)
def test_weights_that_do_not_sum_to_one_name_both_keys(toml: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(toml, source="ws/config.toml")
    assert info.value.message.startswith("ws/config.toml: " + message)


def test_weights_summing_to_one_in_one_namespace_load() -> None:
    config = parse_config("[memory.substrate]\ndense_weight = 0.4\nsparse_weight = 0.6\n")
    assert resolve_substrate_tuning(config).sparse_weight == 0.6


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[memory\n", "not valid TOML"),
        (
            "[memory.substrate]\ndense_weight = 'high'\n",
            "memory.substrate.dense_weight must be a number, got 'high'",
        ),
        (
            "[memory.substrate]\nbm25_k1 = true\n",
            "memory.substrate.bm25_k1 must be a number, got True",
        ),
        ("[memory]\nenabled = 'yes'\n", "memory.enabled must be true or false, got 'yes'"),
        ("[memory.substrate]\ndense_wieght = 0.7\n", "unknown key memory.substrate.dense_wieght"),
        ("[memory.v3]\nlvie = true\n", "unknown key memory.v3.lvie"),
        ("memory = 3\n", "memory must be a table"),
        (
            "[memory.substrate]\nsparse_weight = -0.3\ndense_weight = 1.3\n",
            "memory.substrate.sparse_weight must be at least 0, got -0.3",
        ),
        (
            "[memory.substrate]\ningest_max_page_bytes = 0\n",
            "memory.substrate.ingest_max_page_bytes must be at least 1, got 0",
        ),
    ],
)
def test_bad_config_gives_one_clear_line(toml: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(toml)
    assert message in info.value.message
    assert "\n" not in info.value.message.split(": not valid TOML")[0]


def test_v2_engine_keys_are_typed_and_legacy_keys_tolerated() -> None:
    config = parse_config("[memory.v2]\nrouter_threshold = 1\nsummarizer = 'old'\n")
    assert config.v2["router_threshold"] == 1.0 and config.v2["summarizer"] == "old"
    with pytest.raises(ConfigError, match=r"memory\.v2\.router_treshold"):
        parse_config("[memory.v2]\nrouter_treshold = 0.4\n")
    with pytest.raises(ConfigError, match=r"memory\.v2\.rerank_weight must be a number"):
        parse_config("[memory.v2]\nrerank_weight = 'high'\n")
    with pytest.raises(ConfigError, match=r"memory\.v2\.activation_decay must be at least 0"):
        parse_config("[memory.v2]\nactivation_decay = -0.5\n")


def test_migrate_copies_only_explicit_non_default_v2_tunables(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# my settings\n[memory.v2]\nbm25_k1 = 1.6  # tuned\nbm25_b = 0.75\nembed_model = 'e5'\n"
        "consolidation_interval_hours = 4\n[memory.substrate]\nconsolidation_interval_hours = 6\n"
    )
    assert migrate_config(path) == [
        "memory.substrate.bm25_k1 = 1.6 (from memory.v2.bm25_k1)",
        "memory.substrate.embedding_model = 'e5' (from memory.v2.embed_model)",
    ]
    text = path.read_text()
    assert "# my settings" in text and "# tuned" in text
    config = parse_config(text)
    assert config.substrate == {
        "consolidation_interval_hours": 6.0,
        "bm25_k1": 1.6,
        "embedding_model": "e5",
    }
    assert migrate_config(path) == []


def test_migrate_to_v3_switches_the_tier_and_carries_v2_tunables(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "[memory.v2]\nenabled = true  # legacy\ndense_weight = 0.4\nsparse_weight = 0.6\n"
    )
    assert memory_tier(load_config(path)) == "v2"
    changes = migrate_config(path, to_v3=True)
    assert changes == [
        "memory.v3.live = true (was unset)",
        "memory.substrate.dense_weight = 0.4 (from memory.v2.dense_weight)",
        "memory.substrate.sparse_weight = 0.6 (from memory.v2.sparse_weight)",
    ]
    config = load_config(path)
    assert memory_tier(config) == "v3" and "# legacy" in path.read_text()
    assert migrate_config(path, to_v3=True) == []


def test_migrate_to_v3_writes_a_config_where_there_was_none(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert migrate_config(path, to_v3=True) == ["memory.v3.live = true (was unset)"]
    assert memory_tier(load_config(path)) == "v3"


def test_compute_settings_are_checked_and_default_to_the_cpu() -> None:
    from substrate.config.tuning import resolve_compute

    assert resolve_compute(parse_config("")).providers == ("CPUExecutionProvider",)
    custom = parse_config(
        '[memory.substrate.compute]\nproviders = ["CUDAExecutionProvider", "CPUExecutionProvider"]\n'
        "batch_size = 16\nconcurrent = true\n"
    )
    compute = resolve_compute(custom)
    assert (compute.providers[0], compute.batch_size, compute.concurrent) == (
        "CUDAExecutionProvider",
        16,
        True,
    )
    for toml, words in [
        ('providers = "CPU"', "must be a non-empty list of execution provider names"),
        ("providers = []", "must be a non-empty list"),
        ("batch_size = 0", "batch_size must be at least 1"),
        ("threads = 4", "unknown key memory.substrate.compute.threads"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(words)):
            parse_config(f"[memory.substrate.compute]\n{toml}\n")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "[memory.substrate]\nsessions_retention_days = -1\n",
            "sessions_retention_days must be at least 0",
        ),
        (
            "[memory.substrate]\nconsolidation_interval_hours = 0\n",
            "consolidation_interval_hours must be at least 0.01",
        ),
        (
            "[memory.substrate]\nauto_apply_min_confidence = 7\n",
            "auto_apply_min_confidence must be at most 1",
        ),
        ("[memory.limits]\nfact_bytes = 99999999999999999999\n", "fact_bytes"),
        (
            "[memory.limits]\nfact_bytes = 9223372036854775807\n",
            "fact_bytes must be at most 67108864",
        ),
        (
            '[memory.substrate.llm]\nbase_url = "http://x/v1"\nmodel = ""\n',
            "llm.model must not be empty",
        ),
        (
            '[memory.substrate.llm]\nbase_url = "ftp://x"\nmodel = "m"\n',
            "base_url must be an http:// or https:// URL",
        ),
        ("[memory.v3]\nmax_pages = 0\n", "memory.v3.max_pages must be at least 1"),
        ("[memory.v2]\nbm25_k1 = -2\n", "memory.substrate.bm25_k1 must be at least 0"),
    ],
)
def test_absurd_values_are_refused_naming_the_key(text: str, said: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(said)):
        parse_config(text)


def test_every_key_is_in_the_template_and_the_docs_table() -> None:
    from pathlib import Path

    from substrate.config import keys
    from substrate.config.template import CONFIG_TEMPLATE

    for key in keys.KEYS:
        assert f"{key.name} = " in CONFIG_TEMPLATE, key.dotted
    docs = (Path(__file__).resolve().parents[3] / "docs" / "configuration.md").read_text()
    assert keys.markdown_table() in docs, (
        "regenerate the table: python -c 'from substrate.config.keys import markdown_table as t; print(t())'"
    )


def test_the_tuning_records_hold_exactly_the_declared_keys() -> None:
    """A key declared but not resolved (or resolved but not declared) is a setting
    that silently does nothing."""
    from dataclasses import fields

    from substrate.config import keys
    from substrate.config.lanes import LANES, quota_key
    from substrate.config.tuning import Compute, Limits, SubstrateTuning, V2Tuning, V3Tuning

    for record, table in (
        (SubstrateTuning, keys.SUBSTRATE),
        (V3Tuning, keys.V3),
        (V2Tuning, keys.V2),
        (Limits, keys.LIMITS),
        (Compute, keys.COMPUTE),
    ):
        declared = {k.name for k in keys.KEYS if k.table == table and not k.switch}
        if record is V3Tuning:  # the lanes' quotas are one mapping, by lane
            quotas = {quota_key(lane.name) for lane in LANES}
            declared = (declared - quotas) | {"lane_quotas"}
        assert {f.name for f in fields(record)} == declared, table


def test_a_retired_key_still_loads_and_does_nothing() -> None:
    from substrate.config.keys import RETIRED

    parse_config("[memory.v3]\ncard_excerpt_decay = 0.7\n")  # loads: an older config
    assert "memory.v3.card_excerpt_decay" in RETIRED
    with pytest.raises(ConfigError, match=r"unknown key memory\.v3\.card_excerpt_decays"):
        parse_config("[memory.v3]\ncard_excerpt_decays = 0.7\n")
