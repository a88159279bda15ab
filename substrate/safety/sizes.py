"""How many bytes a file, a folder or a database takes: what `memory purge`
reports before and after it rewrites a store."""

from __future__ import annotations

import os
from pathlib import Path


def file_bytes(path: Path) -> int:
    """A file's size (0 when it is absent); links are not followed."""
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def folder_bytes(folder: Path) -> int:
    """The bytes a folder's files take on disk: allocated blocks, since a store's
    preallocated files (Qdrant's write-ahead log) are sparse and their apparent
    size is not what they hold."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def database_bytes(path: Path) -> int:
    """A SQLite database's bytes with its write-ahead log and shared memory."""
    return sum(file_bytes(Path(f"{path}{suffix}")) for suffix in ("", "-wal", "-shm"))
