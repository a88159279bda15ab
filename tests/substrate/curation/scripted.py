"""A workspace whose LLM is the loopback scripted server (see conftest.py)."""

from __future__ import annotations

from service.settings_loader import build_settings
from substrate import Settings, Workspace


def configure(workspace: Workspace, url: str, extra: str = "", limits: str = "") -> Settings:
    """`extra`: more `[memory.substrate]` lines; `limits`: `[memory.limits]` lines."""
    workspace.config_path.write_text(
        f"[memory.substrate]\nscanner_detector = false\n{extra}"
        f'[memory.substrate.llm]\nbase_url = "{url}"\nmodel = "scripted"\ntimeout_s = 2.0\n'
        + (f"[memory.limits]\n{limits}" if limits else "")
    )
    return build_settings(workspace.root)
