"""Builds `Settings` once, from the workspace folder, its config file and the
environment.

The CLI and the HTTP app call these; no other code reads the config file or
the environment. The LLM's key is read here, from the variable the config
names (`memory.substrate.llm.api_key_env`, default `MEMORY_LLM_API_KEY`), so
a key never has to sit in `config.toml`.
"""

from __future__ import annotations

import os
from pathlib import Path

from substrate import Settings, load_config, open_workspace
from substrate.config.schema import LLM_KEYS


def build_settings(workspace: Path) -> Settings:
    ws = open_workspace(workspace)
    config = load_config(ws.config_path)
    llm = config.substrate.get("llm") or {}
    key_env = str(llm.get("api_key_env") or LLM_KEYS["api_key_env"][1])
    return Settings(workspace=ws, config=config, llm_api_key=os.environ.get(key_env) or None)


def service_token() -> str | None:
    """The bearer token of the HTTP API (env `MEMORY_SERVICE_TOKEN`): required
    to serve on a non-loopback address, and sent by the CLI when set."""
    return os.environ.get("MEMORY_SERVICE_TOKEN") or None
