"""Conversation state: continues across processes, bounded, expiring, never fatal."""

from __future__ import annotations

from pathlib import Path

from lanes.conversations import ConversationLimits, ConversationStore


def test_turns_and_the_frozen_card_survive_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "conversations"
    ConversationStore(path).record_turn("c1", ["a", "b"], {"memory": "<memory/>"}, now=100.0)
    conv = ConversationStore(path).load("c1", now=101.0)
    assert [t.selected for t in conv.turns] == [("a", "b")]
    assert conv.frozen_card == {"memory": "<memory/>"}
    assert ConversationStore(path).load("other", now=101.0).turns == []


def test_only_the_last_turns_are_kept(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c", ConversationLimits(max_turns=2))
    for i in range(4):
        store.record_turn("c", [f"p{i}"], None, now=float(i))
    assert [t.selected for t in store.load("c", now=4.0).turns] == [("p2",), ("p3",)]


def test_a_conversation_expires_after_its_ttl(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c", ConversationLimits(ttl_s=10.0))
    store.record_turn("c", ["a"], {"memory": "x"}, now=0.0)
    assert store.load("c", now=5.0).turns
    expired = store.load("c", now=11.0)
    assert (expired.turns, expired.frozen_card) == ([], None)
    resumed = store.record_turn("c", ["b"], None, now=12.0)
    assert [t.selected for t in resumed.turns] == [("b",)]


def test_only_the_most_recent_conversations_are_kept(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c", ConversationLimits(max_conversations=2))
    for i in range(3):
        store.record_turn(f"c{i}", ["a"], None, now=float(i))
    assert store.load("c0", now=3.0).turns == []
    assert store.load("c1", now=3.0).turns and store.load("c2", now=3.0).turns


def test_a_corrupt_state_file_is_an_empty_state(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c")
    store.record_turn("c", ["old"], None, now=0.0)
    (state,) = (tmp_path / "c").glob("*.json")
    state.write_text("{not json")
    assert store.load("c", now=0.5).turns == []
    store.record_turn("c", ["a"], None, now=1.0)
    assert [t.selected for t in store.load("c", now=2.0).turns] == [("a",)]


def test_a_conversation_is_one_small_file_that_expired_ones_leave(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c", ConversationLimits(ttl_s=10.0))
    store.record_turn("old", ["a"], {"memory": "x" * 1000}, now=0.0)
    store.record_turn("new", ["b"], None, now=5.0)
    assert len(list((tmp_path / "c").glob("*.json"))) == 2
    store.record_turn("newer", ["c"], None, now=12.0)  # a first turn sweeps: "old" expired
    assert len(list((tmp_path / "c").glob("*.json"))) == 2
    assert store.load("new", now=12.0).turns and store.load("newer", now=12.0).turns


def test_recent_turns_keep_each_pages_lanes_newest_first(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c")
    store.record_turn("a", ["x"], None, now=1.0, lanes={"x": ("sim",), "core-page": ("core",)})
    store.record_turn("b", ["y"], None, now=2.0, lanes={"y": ("entity", "sim")})
    turns = ConversationStore(tmp_path / "c").recent_turns(now=3.0)
    assert [(conv, t.lanes) for conv, t in turns] == [
        ("b", {"y": ("entity", "sim")}),
        ("a", {"x": ("sim",), "core-page": ("core",)}),
    ]


def test_a_store_that_read_a_conversation_sees_turns_another_process_added(
    tmp_path: Path,
) -> None:
    """The parsed-file cache must not hide a CLI call's turn from the service."""
    path = tmp_path / "conversations"
    service, cli = ConversationStore(path), ConversationStore(path)
    service.record_turn("c1", ["a"], {"memory": "one"}, now=100.0)
    assert service.load("c1", now=100.5).frozen_card == {"memory": "one"}
    cli.record_turn("c1", ["b"], {"memory": "two"}, now=100.0)  # same second, same mtime
    conv = service.load("c1", now=101.0)
    assert [t.selected for t in conv.turns] == [("a",), ("b",)]
    assert conv.frozen_card == {"memory": "two"}
    service.record_turn("c1", ["c"], None, now=102.0)
    assert [t.selected for t in cli.load("c1", now=103.0).turns] == [("a",), ("b",), ("c",)]
