"""An earlier release's swap, killed between moving the old file aside and
linking the new one in, left only the hidden aside: the sweep puts it back.
Readers no longer restore anything (a reader that did made live writers fail)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from substrate.safety import read_text_snapshot, sweep_stale_temps


def killed_old_swap(path: Path) -> Path:
    """What a kill -9 right after the earlier release's rename left on disk."""
    aside = path.with_name(f".{path.name}.0123456789abcdef.old.tmp")
    os.rename(path, aside)
    return aside


def test_the_sweep_puts_an_orphan_aside_back_and_drops_a_finished_one(tmp_path: Path) -> None:
    orphan_page = tmp_path / "a.md"
    orphan_page.write_text("only copy")
    orphan = killed_old_swap(orphan_page)
    done_page = tmp_path / "b.md"
    done_page.write_text("old")
    finished = killed_old_swap(done_page)
    done_page.write_text("new")  # the kill came after the new file was linked in
    old = time.time() - 3600
    for p in (orphan, finished):
        os.utime(p, (old, old))
    assert sweep_stale_temps([tmp_path]) == 1
    assert orphan_page.read_text() == "only copy" and not orphan.exists()
    assert done_page.read_text() == "new" and not finished.exists()


def test_a_reader_leaves_an_aside_alone(tmp_path: Path) -> None:
    page = tmp_path / "alice.md"
    page.write_text("# Alice\n")
    aside = killed_old_swap(page)
    text, snap = read_text_snapshot(page)
    assert (text, snap.exists) == ("", False)
    assert aside.exists() and not page.exists()
