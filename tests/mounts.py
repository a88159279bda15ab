"""Real filesystems for the tests that need one: a full disk (a tiny tmpfs) and
a read-only workspace (a read-only bind mount). Both need a root shell that
may mount; elsewhere the tests that use them skip, and say why."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or 'not root'})")


@contextmanager
def tiny_disk(path: Path, size_kib: int) -> Iterator[Path]:
    """A tmpfs of `size_kib` KiB at `path`: fill it and writes fail with ENOSPC."""
    if os.geteuid() != 0:
        pytest.skip("a full-disk test needs a root shell to mount a tmpfs")
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(path))
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


@contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """`path` seen read-only (a bind mount over itself) while the block runs."""
    if os.geteuid() != 0:
        pytest.skip("a read-only test needs a root shell to bind-mount")
    _mount("--bind", str(path), str(path))
    try:
        _mount("-o", "remount,ro,bind", str(path))
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(folder: Path) -> None:
    """Write until the disk holding `folder` is full (one file, `filler`)."""
    with open(folder / "filler", "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
