"""The workspace folder: where each file lives, and creating a new one.

Files under `memory/` are the authority; `.substrate/` holds derived state
that can be deleted and rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from substrate.config.template import CONFIG_TEMPLATE
from substrate.errors import WorkspaceError
from substrate.safety.safe_files import write_atomic

VIEW_FILES = ("essentials.md", "threads.md", "recent.md")


CONCEPTS = "concepts"
PKB = "pkb"


@dataclass(frozen=True)
class Workspace:
    """`corpus` picks which folder of pages this view indexes: the concept pages
    (`memory/concepts/`), or the legacy v1 knowledge base (`memory/pkb/`), whose
    page index, index state and embedded Qdrant shard live under `.substrate/pkb/`
    so the two collections never share a file. Everything else (buffer, locks,
    views, profile) is the workspace's own and the same in both views."""

    root: Path
    corpus: str = CONCEPTS

    @property
    def config_path(self) -> Path:
        return self.root / "config.toml"

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def concepts_dir(self) -> Path:
        """The pages of this view's corpus (`memory/concepts/` or `memory/pkb/`)."""
        return self.memory_dir / self.corpus

    @property
    def buffer_path(self) -> Path:
        return self.memory_dir / "buffer.md"

    @property
    def archive_dir(self) -> Path:
        return self.memory_dir / "archive"

    @property
    def state_dir(self) -> Path:
        return self.root / ".substrate"

    @property
    def index_dir(self) -> Path:
        """Where this corpus's derived index lives: page-index cache, index state,
        BM25 statistics and the embedded Qdrant shard."""
        return self.state_dir if self.corpus == CONCEPTS else self.state_dir / self.corpus

    @property
    def page_index_path(self) -> Path:
        return self.index_dir / "page-index.json"

    @property
    def buffer_lock_path(self) -> Path:
        return self.state_dir / "buffer.lock"

    @property
    def consolidation_lock_path(self) -> Path:
        return self.state_dir / "consolidation.lock"

    def view_path(self, name: str) -> Path:
        return self.memory_dir / name

    def pkb(self) -> Workspace:
        """The same workspace seen through its v1 knowledge base (`memory/pkb/`)."""
        return replace(self, corpus=PKB)


def open_workspace(root: Path) -> Workspace:
    """The workspace at `root`, or one clear error saying why it is not one."""
    if not root.exists():
        raise WorkspaceError(
            f"workspace {root} does not exist; create it with `memory init --workspace {root}`"
        )
    if not root.is_dir():
        raise WorkspaceError(f"workspace {root} is not a folder")
    if not (root / "memory").is_dir():
        raise WorkspaceError(
            f"{root} is not a memory workspace (no memory/ folder); "
            f"create one with `memory init --workspace {root}`"
        )
    return Workspace(root)


def init_workspace(root: Path) -> list[Path]:
    """Create the workspace layout; existing files are never touched. Returns what was made."""
    if root.exists() and not root.is_dir():
        raise WorkspaceError(f"cannot create workspace: {root} is a file")
    ws = Workspace(root)
    created: list[Path] = []
    for folder in (ws.concepts_dir, ws.archive_dir, ws.state_dir):
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(folder)
    files = {ws.config_path: CONFIG_TEMPLATE, ws.buffer_path: "# Buffer\n\n"}
    for name in VIEW_FILES:
        files[ws.view_path(name)] = f"# {name.removesuffix('.md').capitalize()}\n"
    for path, text in files.items():
        if not path.exists():
            write_atomic(path, text)
            created.append(path)
    return created
