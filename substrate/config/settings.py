"""What every library call receives: the workspace and its validated config.

Built once by the composition root (`service/`) and passed down, so no
library code reads the environment or the config file itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from substrate.config.config_file import MemoryConfig
from substrate.config.tiers import is_memory_enabled, uses_concept_page_memory
from substrate.config.tuning import (
    Compute,
    Limits,
    SubstrateTuning,
    V2Tuning,
    V3Tuning,
    resolve_compute,
    resolve_limits,
    resolve_substrate_tuning,
    resolve_v2_tuning,
    resolve_v3_tuning,
)
from substrate.config.workspace import Workspace
from substrate.safety.scanner import RULES, Scanner


@dataclass(frozen=True)
class Settings:
    """`llm_api_key` is read by the composition root from the variable the config
    names (`memory.substrate.llm.api_key_env`): the key never sits in a file.
    `scanner` judges every write; the composition root gives it the learned
    detector (the rules alone otherwise). `embed` is the process's multilingual
    sentence embedder (one text to one vector, loaded on first use), for the
    learned judgements outside the index (capture's durability judge); None
    where the composition root gives none, and those judgements are left out.
    `tenant`: the id a multi-workspace service serves this workspace by; with a
    Qdrant server it keys every point of the workspace in a shared collection
    (None: the configured `tenant`, else a collection of its own)."""

    workspace: Workspace
    config: MemoryConfig
    llm_api_key: str | None = None
    scanner: Scanner = field(default=RULES, compare=False)
    embed: Callable[[str], Any] | None = field(default=None, compare=False)
    tenant: str | None = None

    @property
    def tuning(self) -> SubstrateTuning:
        return resolve_substrate_tuning(self.config)

    @property
    def v2(self) -> V2Tuning:
        return resolve_v2_tuning(self.config)

    @property
    def v3(self) -> V3Tuning:
        return resolve_v3_tuning(self.config)

    @property
    def compute(self) -> Compute:
        return resolve_compute(self.config)

    @property
    def limits(self) -> Limits:
        return resolve_limits(self.config)

    def indexed_corpus(self) -> Settings:
        """The settings whose pages this tier indexes and reads: the concept pages
        while the substrate is active (v2, v3), the v1 knowledge base otherwise."""
        if uses_concept_page_memory(self.config) or not is_memory_enabled(self.config):
            return self
        return self.pkb()

    def pkb(self) -> Settings:
        """These settings over the v1 knowledge base (`memory/pkb/`, its own collection)."""
        return replace(self, workspace=self.workspace.pkb())
