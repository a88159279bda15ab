"""A swap killed between moving the old file aside and linking the new one in
leaves only the hidden aside: readers, listings and the sweep put it back."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from substrate.errors import StaleWriteError
from substrate.pages.page_index import walk_pages
from substrate.safety import read_text_snapshot, safe_files, sweep_stale_temps, write_atomic


def killed_swap(path: Path) -> Path:
    """What a kill -9 right after `_install`'s rename leaves on disk."""
    aside = path.with_name(f".{path.name}.0123456789abcdef.old.tmp")
    os.rename(path, aside)
    return aside


def test_a_read_after_a_killed_swap_finds_the_old_file(tmp_path: Path) -> None:
    page = tmp_path / "alice.md"
    page.write_text("# Alice\n- likes tea\n")
    aside = killed_swap(page)
    text, snap = read_text_snapshot(page)
    assert text == "# Alice\n- likes tea\n"
    assert snap.exists and page.exists() and not aside.exists()


def test_a_page_listing_after_a_killed_swap_lists_the_page(tmp_path: Path) -> None:
    (tmp_path / "people").mkdir()
    page = tmp_path / "people" / "alice.md"
    page.write_text("# Alice\n")
    killed_swap(page)
    assert [rel for rel, _ in walk_pages(tmp_path)] == ["people/alice.md"]
    assert page.read_text() == "# Alice\n"


def test_the_sweep_puts_an_orphan_aside_back_and_drops_a_finished_one(tmp_path: Path) -> None:
    orphan_page = tmp_path / "a.md"
    orphan_page.write_text("only copy")
    orphan = killed_swap(orphan_page)
    done_page = tmp_path / "b.md"
    done_page.write_text("old")
    finished = killed_swap(done_page)
    done_page.write_text("new")  # the kill came after the new file was linked in
    old = time.time() - 3600
    for p in (orphan, finished):
        os.utime(p, (old, old))
    assert sweep_stale_temps([tmp_path]) == 1
    assert orphan_page.read_text() == "only copy" and not orphan.exists()
    assert done_page.read_text() == "new" and not finished.exists()


def test_a_writer_that_loses_the_race_to_a_restoring_reader_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "alice.md"
    page.write_text("old")
    _, snap = read_text_snapshot(page)
    real_link = os.link
    raced = []

    def reader_first(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == page and not raced:  # a reader runs between rename and link
            raced.append(src)
            read_text_snapshot(page)
        real_link(src, dst)

    monkeypatch.setattr(safe_files.os, "link", reader_first)
    with pytest.raises(StaleWriteError):
        write_atomic(page, "new", expected=snap)
    assert raced and page.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["alice.md"]


def test_a_capped_page_read_after_a_killed_swap_finds_the_old_file(tmp_path: Path) -> None:
    page = tmp_path / "alice.md"
    page.write_bytes(b"# Alice\n")
    killed_swap(page)
    assert safe_files.read_regular_file(page, 100) == b"# Alice\n"
