"""On a (nearly) full disk a change of memory/ is either refused before its
first write or made and said: a page move whose index cannot catch up answers
that it moved, with the index behind, never an error after the fact; a
disk with no room refuses the move with nothing changed; a card from the
library still answers when the store cannot open; an import stopped by the
disk is captured by the next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.memory import Memory
from service.settings_loader import build_settings
from substrate.errors import DiskFullError
from substrate.index import EdgeStore, SearchIndex
from tests.embedders import HashingEmbedder
from tests.mounts import fill, tiny_disk
from tests.service.test_full_disk import workspace_on

PAGE = "---\ntitle: Lisbon\n---\nThe family lives in Lisbon near the river. See [[trip]].\n"
TRIP = "---\ntitle: Trip\nlinks: [lisbon]\n---\nA trip to [[lisbon]].\n"


def memory_on(disk: Path) -> Memory:
    root = workspace_on(disk)
    (root / "memory" / "concepts" / "lisbon.md").write_text(PAGE)
    (root / "memory" / "concepts" / "trip.md").write_text(TRIP)
    settings = build_settings(root)
    store = EdgeStore(settings.workspace.state_dir / "qdrant")
    index = SearchIndex(settings, HashingEmbedder(), store, HashingEmbedder(48))
    return Memory(settings, index=index)


def test_a_move_whose_index_cannot_catch_up_answers_that_it_moved(tmp_path: Path) -> None:
    # 32 MiB: room for the move (4 MiB), not for the embedded index (64 MiB)
    with tiny_disk(tmp_path / "disk", 32 * 1024) as disk:
        memory = memory_on(disk)
        concepts = memory.settings.workspace.concepts_dir
        done = memory.move_page("lisbon", "places/lisbon")
        assert done["to"] == "places/lisbon" and done["relinked"] == ["trip"]
        assert "behind" in done["index"] and "MiB free" in done["index"]
        assert (concepts / "places/lisbon.md").exists() and not (concepts / "lisbon.md").exists()
        assert "[[places/lisbon]]" in (concepts / "trip.md").read_text()
        memory.close()


def test_a_full_disk_refuses_a_move_and_a_delete_before_anything_changes(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", 32 * 1024) as disk:
        memory = memory_on(disk)
        concepts = memory.settings.workspace.concepts_dir
        fill(disk)
        for change in (
            lambda: memory.move_page("lisbon", "places/lisbon"),
            lambda: memory.delete_page("lisbon"),
        ):
            with pytest.raises(DiskFullError, match="nothing was changed"):
                change()
        assert (concepts / "lisbon.md").read_text() == PAGE
        assert (concepts / "trip.md").read_text() == TRIP
        assert not (memory.settings.workspace.memory_dir / "trash").exists()
        memory.close()


def test_a_library_card_answers_when_the_store_cannot_open(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", 32 * 1024) as disk:
        memory = memory_on(disk)
        memory.remember("I moved to Lisbon.")
        root = memory.settings.workspace.root
        memory.close()
        (root / ".substrate" / "qdrant" / "wal").mkdir(parents=True, exist_ok=True)
        fill(disk)
        fresh = Memory(build_settings(root))
        card = fresh.card("where does the family live?", "c1")
        assert card["tier"] == "v3" and "I moved to Lisbon." in card["info"]
        fresh.close()
