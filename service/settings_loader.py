"""Builds `Settings` once, from the workspace folder, its config file and the
environment.

The CLI and the HTTP app call these; no other code reads the config file or
the environment. The LLM's key is read here, from the variable the config
names (`memory.substrate.llm.api_key_env`, default `MEMORY_LLM_API_KEY`), so
a key never has to sit in `config.toml`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from substrate import MemoryConfig, Settings, load_config, open_workspace
from substrate.config import resolve_substrate_tuning
from substrate.config.schema import LLM_KEYS
from substrate.meaning.secrets import stated_values
from substrate.safety import DeferredDetector, Scanner


def build_settings(workspace: Path, tenant: str | None = None) -> Settings:
    """`tenant`: the id a multi-workspace service serves the workspace by."""
    ws = open_workspace(workspace)
    config = load_config(ws.config_path)
    llm = config.substrate.get("llm") or {}
    key_env = str(llm.get("api_key_env") or LLM_KEYS["api_key_env"][1])
    embed = sentence_embedder(ws.state_dir)
    return Settings(
        workspace=ws,
        config=config,
        llm_api_key=os.environ.get(key_env) or None,
        scanner=build_scanner(config, embed),
        embed=embed,
        tenant=tenant,
    )


def sentence_embedder(state_dir: Path | None) -> Callable[[str], Any]:
    """The process's one USE (shared with the index), loaded on the first text it
    embeds. Capture's judge and the scanner's detector read the same statement
    one after the other, so the last few hundred vectors are kept."""

    @lru_cache(maxsize=256)
    def embed(text: str) -> Any:
        from substrate.index.use_embedder import shared_use

        return shared_use(state_dir).embed_query(text)

    return embed


def build_scanner(config: MemoryConfig | None, embed: Callable[[str], Any]) -> Scanner:
    """The rules, with the learned detector unless `scanner_detector = false`,
    embedding with `embed` (`sentence_embedder`) on the first text the rules let
    through; a secret stated in words is read from the parse (`meaning.secrets`),
    loaded on the first text that names a password or a PIN."""
    if config is not None and not resolve_substrate_tuning(config).scanner_detector:
        return Scanner(reader=stated_values)
    return Scanner(DeferredDetector(embed), reader=stated_values)


def service_token() -> str | None:
    """The bearer token of the HTTP API (env `MEMORY_SERVICE_TOKEN`): required
    to serve on a non-loopback address, and sent by the CLI when set."""
    return os.environ.get("MEMORY_SERVICE_TOKEN") or None


def admin_token() -> str | None:
    """The token that manages a multi-workspace service's workspaces (env
    `MEMORY_ADMIN_TOKEN`); without it the service has no admin routes."""
    return os.environ.get("MEMORY_ADMIN_TOKEN") or None


def default_qdrant() -> dict[str, Any]:
    """What a workspace a multi-workspace service creates is given as its
    `[memory.substrate.qdrant]` table: the server in env `QDRANT_URL` (none:
    the embedded store) and the copies of each shard in `QDRANT_REPLICATION`."""
    url = os.environ.get("QDRANT_URL")
    if not url:
        return {}
    return {"url": url, "replication": int(os.environ.get("QDRANT_REPLICATION") or 1)}


def configured_hosts() -> tuple[str, ...]:
    """Extra names the HTTP service answers to (env `MEMORY_ALLOWED_HOSTS`,
    comma-separated; `*` for any, behind a proxy that checks names itself)."""
    raw = os.environ.get("MEMORY_ALLOWED_HOSTS", "")
    return tuple(name.strip() for name in raw.split(",") if name.strip())
