"""Builds `Settings` once, from the workspace folder and its config file.

The CLI and (later) the HTTP app call this; no other code reads the config
file or the environment.
"""

from __future__ import annotations

from pathlib import Path

from substrate import Settings, load_config, open_workspace


def build_settings(workspace: Path) -> Settings:
    ws = open_workspace(workspace)
    return Settings(workspace=ws, config=load_config(ws.config_path))
