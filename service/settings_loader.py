"""Builds `Settings` once, from the workspace folder and its config file.

The CLI and the HTTP app call these; no other code reads the config
file or the environment.
"""

from __future__ import annotations

import os
from pathlib import Path

from substrate import Settings, load_config, open_workspace


def build_settings(workspace: Path) -> Settings:
    ws = open_workspace(workspace)
    return Settings(workspace=ws, config=load_config(ws.config_path))


def service_token() -> str | None:
    """The bearer token of the HTTP API (env `MEMORY_SERVICE_TOKEN`): required
    to serve on a non-loopback address, and sent by the CLI when set."""
    return os.environ.get("MEMORY_SERVICE_TOKEN") or None
