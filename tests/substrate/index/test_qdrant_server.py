"""The search-index tests against a real Qdrant server named by QDRANT_URL
(`docker compose -f compose/docker-compose.yml up qdrant`, then
`QDRANT_URL=http://127.0.0.1:6333 make test`); skipped when it is not set.

The functions are those of `test_search_index.py`; only the `index` fixture
differs: a fresh collection on the server for each test, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from substrate import Settings
from substrate.index import SearchIndex, ServerStore
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.substrate.index.test_search_index import (  # noqa: F401 - collected here as well
    PAGES,
    test_capabilities_are_excluded_unless_asked_for,
    test_changed_embedder_identity_rebuilds,
    test_changed_page_is_reembedded_and_old_text_is_gone,
    test_deleted_page_leaves_the_index,
    test_hit_carries_provenance,
    test_lost_bm25_stats_are_rebuilt_from_the_store,
    test_maintain_embeds_every_page_once,
    test_rebuild_flag_reembeds_everything,
    test_search_finds_by_words_and_reports_both_ranks,
    test_touched_but_unchanged_page_is_not_reembedded,
)

QDRANT_URL = os.environ.get("QDRANT_URL", "")
pytestmark = pytest.mark.skipif(not QDRANT_URL, reason="QDRANT_URL is not set")


@pytest.fixture
def index(settings: Settings, write_page: PageWriter) -> Iterator[SearchIndex]:
    for slug, text in PAGES.items():
        write_page(slug, text)
    store = ServerStore(QDRANT_URL, f"test_{uuid.uuid4().hex}")
    idx = SearchIndex(settings, HashingEmbedder(), store)
    yield idx
    store.drop()
    store.close()
