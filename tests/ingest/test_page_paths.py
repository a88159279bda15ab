"""Paths: one slug limit that every name the writer makes of it fits, no write
through a linked folder under memory/, restore checks before it moves, and a
killed writer's temp files are swept from every folder of memory/."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ingest.page_ops import delete_page, restore_page, trash, write_page
from substrate import InvalidInputError, Settings, remember
from substrate.index import EdgeStore, SearchIndex
from substrate.pages import load_page_index
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


def test_the_longest_valid_slug_segment_can_be_written_and_one_byte_more_is_refused(
    settings: Settings,
) -> None:
    longest = "é" * 100  # 200 bytes
    write_page(settings, f"notes/{longest}", "---\ntitle: Long\n---\nA long name.\n")
    assert f"notes/{longest}" in load_page_index(settings.workspace).entries
    delete_page(settings, f"notes/{longest}")  # the trash holds the same name
    restore_page(settings, f"notes/{longest}")
    with pytest.raises(InvalidInputError, match="longer than 200 bytes"):
        write_page(settings, f"notes/{longest}x", "---\ntitle: Long\n---\nToo long.\n")


@pytest.mark.parametrize("folder", ["trash", "archive", "conversations", "profile"])
def test_no_write_follows_a_linked_folder_out_of_the_workspace(
    settings: Settings, write_page: PageWriter, tmp_path: Path, folder: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    memory = settings.workspace.memory_dir
    if (memory / folder).exists():
        os.rename(memory / folder, tmp_path / f"old-{folder}")
    (memory / folder).symlink_to(outside, target_is_directory=True)
    write_page("people/sam", "---\ntitle: Sam\n---\nSam.\n")
    with pytest.raises(InvalidInputError, match="is a symbolic link"):
        if folder == "trash":
            delete_page(settings, "people/sam")
        elif folder == "archive":
            remember(settings, "I moved to Leeds.")
        elif folder == "conversations":
            from substrate.sessions import NewMessage, open_session_log

            open_session_log(settings.workspace).append(
                "s1", [NewMessage("user", "hi", True)], time.time()
            )
        else:
            from substrate.profile import profile_path

            profile_path(settings.workspace, "USER.md")
    assert list(outside.iterdir()) == []


def test_restore_refuses_a_fifo_before_moving_anything(
    settings: Settings, write_page: PageWriter
) -> None:
    write_page("people/sam", "---\ntitle: Sam\n---\nSam.\n")
    name = delete_page(settings, "people/sam")["trash"]
    entry = settings.workspace.memory_dir / "trash" / f"{name}.md"
    entry.unlink()
    os.mkfifo(entry)
    assert [t["page"] for t in trash(settings)] == ["people/sam"]
    with pytest.raises(InvalidInputError, match="not a regular file"):
        restore_page(settings, "people/sam")
    assert entry.exists() and not (settings.workspace.concepts_dir / "people/sam.md").exists()


def test_maintain_sweeps_stale_temps_from_every_folder_of_memory(settings: Settings) -> None:
    memory = settings.workspace.memory_dir
    old = time.time() - 3600
    temps = []
    for folder in ("conversations", "profile", "trash/20240101T000000Z/people", "archive", "."):
        (memory / folder).mkdir(parents=True, exist_ok=True)
        temp = memory / folder / ".x.md.abcd1234.tmp"
        temp.write_text("half")
        os.utime(temp, (old, old))
        temps.append(temp)
    store = EdgeStore(settings.workspace.state_dir / "qdrant")
    try:
        SearchIndex(settings, HashingEmbedder(), store, HashingEmbedder(48)).maintain()
    finally:
        store.close()
    assert [t for t in temps if t.exists()] == []
