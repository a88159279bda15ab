"""A served workspace whose index grew past the graph's threshold gets its graph
built on a thread of its own while cards keep answering; `/healthz` says so."""

from __future__ import annotations

import time

import pytest

import substrate.index.approximate as approximate
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Workspace
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


def test_the_graph_is_built_beside_the_service_and_search_still_finds_the_pages(
    workspace: Workspace, write_page: PageWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(60):
        write_page(f"notes/n{n}", f"---\ntitle: N{n}\n---\nNote {n} about topic{n} and tea.\n")
    monkeypatch.setattr(approximate, "APPROX_FROM_POINTS", 50)
    rt = Runtime(
        build_settings(workspace.root), embedder=HashingEmbedder(), multilingual=HashingEmbedder(48)
    )
    try:
        rt.memory.maintain()
        assert rt.graph == "none"
        assert rt.approximate_soon()
        assert not rt.approximate_soon()  # one build at a time
        deadline = time.monotonic() + 60
        while rt.graph == "building" and time.monotonic() < deadline:
            assert rt.memory.search("topic7 tea", 1)[0]["slug"] == "notes/n7"  # answers meanwhile
            time.sleep(0.05)
        assert rt.graph == "ready" and rt.search.store.approximate  # type: ignore[attr-defined]
        assert rt.memory.search("topic42 tea", 1)[0]["slug"] == "notes/n42"
        assert not rt.approximate_soon()  # built: not again
    finally:
        rt.close()
