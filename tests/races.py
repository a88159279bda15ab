"""Races injected at the one instant a drift-aware write is exposed: between
its last drift check and the atomic exchange that installs the new file.

`safe_files` exchanges the new file with the current one through the
`renameat2` system call; wrapping that binding lets a test play an editor
who saves (in place, or by a rename of its own) at exactly that moment.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from substrate.safety import safe_files


def before_exchange(
    monkeypatch: pytest.MonkeyPatch, target: Path, act: Callable[[], None], times: int = 1
) -> list[int]:
    """Run `act` just before the next `times` exchanges onto `target`; the list
    counts the exchanges it ran before."""
    real = safe_files._renameat2
    assert real is not None, "this filesystem's libc has no renameat2"
    ran: list[int] = []

    def exchange(olddirfd: int, old: bytes, newdirfd: int, new: bytes, flags: int) -> Any:
        if os.fsdecode(new) == str(target) and len(ran) < times:
            ran.append(1)
            act()
        return real(olddirfd, old, newdirfd, new, flags)

    monkeypatch.setattr(safe_files, "_renameat2", exchange)
    return ran


def save_by_rename(target: Path, text: str) -> None:
    """How most editors save: a new file renamed over the old one."""
    tmp = target.with_name(f"{target.name}.editor~")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
