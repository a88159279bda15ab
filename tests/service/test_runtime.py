"""The service runtime: warmed before it serves, pages visible to cards as soon
as a maintain returns, store compaction deferred to a quiet spell."""

from __future__ import annotations

import time

import pytest

import service.runtime
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import MemoryServiceError, Settings, Workspace
from substrate.sessions import NewMessage
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.llm_server import ScriptedLLM


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


def test_a_slow_model_never_holds_up_index_upkeep(
    workspace: Workspace, write_page: PageWriter, llm_server: ScriptedLLM
) -> None:
    """A finalization waits on a model that takes 6 s to answer; meanwhile a page
    written by hand is noticed and becomes searchable (the index has its own lane)."""
    workspace.config_path.write_text(
        "[memory.substrate]\nscanner_detector = false\n[memory.substrate.llm]\n"
        f'base_url = "{llm_server.url}"\nmodel = "scripted"\ntimeout_s = 8.0\n'
    )
    settings = build_settings(workspace.root)
    runtime = Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )
    try:
        runtime.start()
        runtime.sessions.append("s1", [NewMessage("user", "I moved to Porto", True)], 1.0)
        llm_server.stall(6.0)
        runtime.memory.end_session("s1", "exit")
        deadline = time.monotonic() + 5
        while not llm_server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_server.requests, "the finalization should be waiting on the model"
        write_page("notes/kiwi", "---\ntitle: Kiwi\n---\nThe kiwi orchard by the river.")
        started = time.monotonic()
        found: list[str] = []
        while time.monotonic() - started < 5 and not found:
            found = [h.slug for h in runtime.search.search("kiwi orchard", 1)]
            time.sleep(0.1)
        assert found == ["notes/kiwi"] and time.monotonic() - started < 5
    finally:
        runtime.close()


def test_the_service_freezes_its_warmed_heap_and_settles_it_again_when_quiet(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memory serve`'s runtime: after warming, what is alive is frozen out of
    the collector's walks and young objects are collected less often; a quiet
    spell past `SETTLE_EVERY_S` settles the heap again. A runtime that does
    not manage the heap (a test harness, an embedding host) leaves both alone."""
    import gc

    before = gc.get_threshold()
    plain = Runtime(settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48))
    try:
        gc.unfreeze()
        plain.start()
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    finally:
        plain.close()
    monkeypatch.setattr(service.runtime, "OPTIMIZE_IDLE_S", 0.0)
    # Every quiet idle is due to settle: the worker's own idle calls may settle
    # first (under load they did, and the one below then found it not yet due).
    monkeypatch.setattr(service.runtime, "SETTLE_EVERY_S", 0.0)
    managed = Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), manage_heap=True
    )
    try:
        managed.start()
        with service.runtime.HEAP_LOCK:  # not while the worker's own idle settles
            assert gc.get_freeze_count() > 0
            assert gc.get_threshold()[0] == service.runtime.GC_YOUNG
            gc.unfreeze()
        managed.idle()  # a quiet runtime settles the heap again
        with service.runtime.HEAP_LOCK:
            assert gc.get_freeze_count() > 0
    finally:
        managed.close()
        gc.unfreeze()
        gc.set_threshold(*before)
