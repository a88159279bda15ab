"""The service runtime: warmed before it serves, pages visible to cards as soon
as a maintain returns, store compaction deferred to a quiet spell."""

from __future__ import annotations

import time

import pytest

import service.runtime
from service.runtime import Runtime
from substrate import MemoryServiceError, Settings
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


def test_compaction_waits_for_reads_to_pause_and_runs_once(
    settings: Settings, write_page: PageWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service.runtime, "OPTIMIZE_IDLE_S", 0.3)
    write_page("a", "---\ntitle: Alpha\n---\nThe alpha page.")
    runtime = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    compacted: list[bool] = []
    compact = runtime.search.optimize
    monkeypatch.setattr(runtime.search, "optimize", lambda: compacted.append(True) or compact())
    try:
        assert runtime.maintain().embedded == 1
        assert compacted == []  # not on the write: it would hold the GIL under live reads
        runtime.note_read()
        assert not runtime.idle()  # a read just arrived
        time.sleep(0.35)
        assert runtime.idle() and compacted == [True]
        assert not runtime.idle()  # nothing left to compact
        assert runtime.maintain().embedded == 0
        assert not runtime.idle()  # a no-op maintain leaves nothing to compact
        write_page("b", "---\ntitle: Beta\n---\nThe beta page.")
        runtime.maintain()
    finally:
        runtime.close()
    assert compacted == [True, True]  # shutdown compacts what was left


def test_cards_see_pages_as_soon_as_a_maintain_returns(
    settings: Settings, write_page: PageWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service.runtime, "PAGE_REFRESH_S", 3600.0)  # turns alone would not look
    write_page("a", "---\ntitle: Alpha\n---\nThe alpha page.")
    runtime = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    try:
        runtime.start()  # warms the injector: the page index is read now
        write_page("b", "---\ntitle: Bartholomew\n---\nThe new page.")
        runtime.maintain()
        blocks = runtime.injector.assemble("what about Bartholomew?", "c1")
        assert "b" in [s.slug for s in blocks.selected if "entity" in s.lanes]
    finally:
        runtime.close()


def test_stopping_interrupts_indexing_and_the_next_maintain_completes_it(
    settings: Settings, write_page: PageWriter
) -> None:
    for i in range(40):
        write_page(f"p{i}", f"---\ntitle: Page {i}\n---\nBody of page {i}.")
    runtime = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    runtime.stop_writes()
    with pytest.raises(MemoryServiceError, match="service is stopping: indexing stopped after"):
        runtime.maintain()
    runtime.close()
    again = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    try:
        report = again.maintain()
        assert report.embedded == 40 and report.unchanged == 0
        assert [h.slug for h in again.search.search("Body of page 7", 1)] == ["p7"]
    finally:
        again.close()
