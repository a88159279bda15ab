"""Unreadable derived lane state is reset loudly: logged and counted, never silent."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from lanes.conversations import ConversationStore
from lanes.edges import LearnedEdges
from lanes.health import RESETS


def test_an_unreadable_edges_journal_is_logged_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "edges.jsonl"
    path.write_text("{not a snapshot\n")
    before = RESETS["learned edges"]
    with caplog.at_level(logging.WARNING, "memory.lanes"):
        graph = LearnedEdges(path, 0.98).current()
    assert graph.graph.number_of_edges() == 0
    assert RESETS["learned edges"] == before + 1
    assert "edges.jsonl is unreadable" in caplog.text


def test_a_torn_conversation_file_is_logged_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = ConversationStore(tmp_path / "conversations")
    store.record_turn("c1", ["a"], None, 100.0)
    (path,) = (tmp_path / "conversations").glob("*.json")
    path.write_text("{torn")
    before = RESETS["conversation"]
    fresh = ConversationStore(tmp_path / "conversations")
    with caplog.at_level(logging.WARNING, "memory.lanes"):
        assert fresh.load("c1", 101.0).turns == []
    assert RESETS["conversation"] == before + 1
    assert "is unreadable (JSONDecodeError)" in caplog.text


def test_a_missing_file_is_no_reset(tmp_path: Path) -> None:
    before = dict(RESETS)
    assert ConversationStore(tmp_path / "none").load("c1", 1.0).turns == []
    assert LearnedEdges(tmp_path / "edges.jsonl", 0.98).current().graph.number_of_edges() == 0
    assert dict(RESETS) == before
