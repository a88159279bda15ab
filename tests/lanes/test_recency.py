"""The hot and core lanes."""

from __future__ import annotations

from lanes.conversations import Conversation, TurnRecord
from lanes.recency import core_lane, hot_lane
from substrate import Settings, load_page_index
from tests.conftest import PageWriter


def test_hot_decays_per_turn_and_drops_deleted_pages(
    settings: Settings, write_page: PageWriter
) -> None:
    for slug in ("a", "b", "c"):
        write_page(slug, f"{slug} page")
    conv = Conversation(
        "c",
        turns=[
            TurnRecord(1.0, ("a", "gone")),
            TurnRecord(2.0, ("b",)),
            TurnRecord(3.0, ("c", "b")),
        ],
    )
    ranked = hot_lane(conv, 0.5, load_page_index(settings.workspace))
    assert [(c.slug, c.score) for c in ranked] == [("b", 1.5), ("c", 1.0), ("a", 0.25)]
    assert {c.lane for c in ranked} == {"hot"}


def test_core_lists_only_pages_marked_core(settings: Settings, write_page: PageWriter) -> None:
    write_page("prefs", "---\ncore: true\n---\nUser prefers metric units.")
    write_page("misc", "---\ncore: yes please\n---\nNot literally true.")
    write_page("plain", "Plain.")
    assert [c.slug for c in core_lane(load_page_index(settings.workspace))] == ["prefs"]
