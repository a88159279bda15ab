"""Owns `.substrate/index-state.json` (per corpus: `Workspace.index_dir`): what the
collection holds, as the last maintain left it.

    {"version": 2, "identity": "<models;tokens;...>", "sparse_avgdl": 41.7,
     "pages": {"<slug>": ["<content hash>", <chunks>], ...}}

Unreadable or of another version reads as empty: the next maintain rebuilds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError
from substrate.safety.safe_files import MAX_FILE_BYTES, read_regular_file, write_atomic

STATE_VERSION = 2


def state_path(index_dir: Path) -> Path:
    return index_dir / "index-state.json"


def read_index_state(path: Path) -> dict[str, Any]:
    try:
        state = json.loads(read_regular_file(path, MAX_FILE_BYTES))
    except (OSError, ValueError, InvalidInputError):
        return {}
    return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else {}


def write_index_state(path: Path, state: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(state, ensure_ascii=False, separators=(",", ":")))


def mark_stale(path: Path, slugs: set[str]) -> int:
    """Mark these pages' indexed content as unknown, so the next maintain deletes
    their stored points and re-embeds them (or drops them when the page is gone);
    returns how many were listed."""
    state = read_index_state(path)
    pages = state.get("pages", {})
    stale = [slug for slug in slugs if slug in pages]
    for slug in stale:
        pages[slug][0] = ""
    if stale:
        write_index_state(path, state)
    return len(stale)
