"""The search-index tests against the Qdrant server path, keyed by tenant:
qdrant-client's local mode (which honours the filters) in CI, or a real
server named by QDRANT_URL (`docker compose -f compose/docker-compose.yml up
qdrant`, then `QDRANT_URL=http://127.0.0.1:6333 make test`).

The functions are those of `test_search_index.py`; only the `index` fixture
differs: the workspace is one tenant of a collection it shares with a
neighbour that holds pages of the same slugs (and words of its own), so every
test also checks that nothing of the neighbour's comes back or is touched.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from substrate import MemoryConfig, Settings, StoreUnavailableError, init_workspace, open_workspace
from substrate.index import SearchIndex, ServerStore
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.substrate.index.test_search_index import (  # noqa: F401 - collected here as well
    PAGES,
    test_capabilities_are_excluded_unless_asked_for,
    test_changed_page_is_reembedded_and_old_text_is_gone,
    test_deleted_page_leaves_the_index,
    test_hit_carries_provenance,
    test_lost_bm25_stats_are_rebuilt_from_the_store,
    test_maintain_embeds_every_page_once,
    test_rebuild_flag_reembeds_everything,
    test_search_finds_by_words_and_reports_both_ranks,
    test_touched_but_unchanged_page_is_not_reembedded,
)

QDRANT_URL = os.environ.get("QDRANT_URL", ":memory:")
NEIGHBOUR = "zzneighbourword"


@pytest.fixture
def index(settings: Settings, write_page: PageWriter, tmp_path: Path) -> Iterator[SearchIndex]:
    for slug, text in PAGES.items():
        write_page(slug, text)
    collection = f"test_{uuid.uuid4().hex}"
    client = QdrantClient(location=":memory:") if QDRANT_URL == ":memory:" else None
    neighbour = neighbour_index(tmp_path / "neighbour", collection, client)
    store = ServerStore(QDRANT_URL, collection, tenant="me", client=client)
    idx = SearchIndex(settings, HashingEmbedder(), store)
    yield idx
    hits = idx.search(f"{NEIGHBOUR} shellfish Lisbon", 50)
    assert all(NEIGHBOUR not in h.excerpt for h in hits)  # nothing of the neighbour's
    points = neighbour.store.count()
    neighbour.maintain()
    assert neighbour.store.count() == points > 0  # and nothing of it touched
    store.drop()
    assert store.count() == 0 and neighbour.store.count() == points
    neighbour.store.drop()
    store.close()
    neighbour.store.close()
    if client is not None:
        client.close()


def neighbour_index(root: Path, collection: str, client: Any) -> SearchIndex:
    """Another workspace in the same collection: the same slugs, its own words."""
    init_workspace(root)
    settings = Settings(open_workspace(root), MemoryConfig())
    for slug in PAGES:
        path = settings.workspace.concepts_dir / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {slug}\n---\nThe {NEIGHBOUR} shellfish Lisbon page.\n")
    store = ServerStore(QDRANT_URL, collection, tenant="neighbour", client=client)
    neighbour = SearchIndex(settings, HashingEmbedder(), store)
    neighbour.maintain()
    return neighbour


def test_a_tenant_with_other_models_is_refused_and_the_collection_kept(
    index: SearchIndex, settings: Settings
) -> None:
    """A shared collection holds one embedding configuration: a workspace whose
    models make other vectors is told to use another collection, and neither
    its points nor anyone else's are dropped."""
    index.maintain()
    before = index.store.count()
    other = SearchIndex(settings, HashingEmbedder(dim=32), index.store, HashingEmbedder(48))
    with pytest.raises(StoreUnavailableError, match=r"another \[memory.substrate.qdrant\]"):
        other.maintain()
    assert index.store.count() == before and index.search("allergic shellfish", 1)


def test_a_collection_of_its_own_is_rebuilt_for_other_models(
    settings: Settings, write_page: PageWriter
) -> None:
    """Without a tenant the workspace owns its collection, and a change of models
    rebuilds it in place."""
    for slug, text in PAGES.items():
        write_page(slug, text)
    store = ServerStore(QDRANT_URL, f"test_{uuid.uuid4().hex}")
    try:
        SearchIndex(settings, HashingEmbedder(), store).maintain()
        other = SearchIndex(settings, HashingEmbedder(dim=32), store, HashingEmbedder(48))
        report = other.maintain()
        assert report.rebuilt and report.embedded == 4
        assert other.search("allergic shellfish", k=1)[0].slug == "people/sam"
    finally:
        store.drop()
        store.close()


def test_bm25_scores_count_the_workspaces_own_documents_alone(
    index: SearchIndex, settings: Settings, tmp_path: Path
) -> None:
    """The neighbour's every page says "shellfish": a pooled IDF would score the
    word lower here. The tenant's BM25 equals that of the same pages in a
    collection of their own."""
    index.maintain()
    alone_root = tmp_path / "alone"
    shutil.copytree(
        settings.workspace.root, alone_root, ignore=shutil.ignore_patterns(".substrate")
    )
    (alone_root / ".substrate").mkdir()
    alone_settings = Settings(open_workspace(alone_root), MemoryConfig())
    store = ServerStore(QDRANT_URL, f"test_{uuid.uuid4().hex}")
    try:
        alone = SearchIndex(alone_settings, HashingEmbedder(), store)
        alone.maintain()
        for query in ("shellfish", "allergic shellfish Lisbon"):
            mine = {h.slug: h.sparse_score for h in index.search(query, 5)}
            own = {h.slug: h.sparse_score for h in alone.search(query, 5)}
            assert mine.keys() == own.keys() and mine
            assert any(score for score in own.values())
            for slug, score in own.items():
                assert (mine[slug] is None) == (score is None)
                assert score is None or abs((mine[slug] or 0.0) - score) < 1e-4 * score
    finally:
        store.drop()
        store.close()
