"""`memory purge`'s work on `memory/` and the derived files no store owns.

A forget erases the words from every file under `memory/` at once; what it
cannot reach at once is what the derived stores keep of deleted rows and
points (the index, the databases), which their owners rewrite (`compact`);
the rest is here: the trash emptied (`--trash`: a deleted page is restorable
until then), the page cache rewritten from the pages, and the temp files a
killed writer left swept.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.pages.page_index import rewrite_page_cache
from substrate.safety import file_bytes, sweep_stale_temps

TRASH = "trash"
TEMP_AGE_S = 60.0  # a temp file older than this belongs to no writer still running


def empty_trash(settings: Settings) -> dict[str, Any]:
    """Every page in `memory/trash/` removed for good; how many and their bytes."""
    root = settings.workspace.memory_dir / TRASH
    if not root.is_dir() or root.is_symlink():
        return {"path": str(root), "pages": 0, "before": 0, "after": 0}
    pages = sum(1 for p in root.rglob("*.md") if p.is_file() and not p.is_symlink())
    before = sum(file_bytes(p) for p in root.rglob("*") if p.is_file())
    shutil.rmtree(root)
    return {"path": str(root), "pages": pages, "before": before, "after": 0}


def refresh_page_cache(settings: Settings) -> dict[str, Any]:
    """The page cache written again from the pages as they are (a removed page's
    title leaves it)."""
    path = settings.workspace.page_index_path
    before = file_bytes(path)
    rewrite_page_cache(settings.workspace)
    return {"path": str(path), "before": before, "after": file_bytes(path)}


def sweep_temps(settings: Settings, older_than_s: float = TEMP_AGE_S) -> int:
    """Temp files killed writers left anywhere under the workspace (links not
    followed: they may hold what a forget was erasing); how many went."""
    ws = settings.workspace
    folders = [Path(folder) for folder, _, _ in os.walk(ws.memory_dir)]
    folders += [Path(folder) for folder, _, _ in os.walk(ws.state_dir)]
    return sweep_stale_temps(folders, older_than_s=older_than_s)
