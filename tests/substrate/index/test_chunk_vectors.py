"""Re-indexing a page that gained a fact embeds the new chunk, not the page."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from substrate import Settings
from substrate.index import EdgeStore, SearchIndex, Vectors
from substrate.index.chunk_vectors import ChunkVectors
from substrate.index.store import DENSE, DENSE_ML
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


class Counting(HashingEmbedder):
    def __init__(self, dim: int = 64) -> None:
        super().__init__(dim)
        self.seen: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.seen += list(texts)
        return super().embed_documents(texts)


def facts_page(n: int) -> str:
    bullets = "\n".join(
        f"- [2024-01-{i + 1:02d}] Fact number {i} about the garden shed." for i in range(n)
    )
    return f"---\ntitle: Shed\n---\n<!-- memory:facts -->\n## Facts\n{bullets}\n<!-- /memory:facts -->\n"


def test_a_page_that_gained_a_fact_re_embeds_only_its_changed_chunk(
    settings: Settings, write_page: PageWriter
) -> None:
    dense, ml = Counting(), Counting(48)
    index = SearchIndex(settings, dense, EdgeStore(settings.workspace.state_dir / "q"), ml)
    try:
        write_page("shed", facts_page(9))  # three chunks of three facts
        index.maintain()
        assert len(dense.seen) == 3
        write_page("shed", facts_page(10))  # a fourth chunk
        dense.seen.clear()
        index.maintain()
        assert len(dense.seen) == 1 and "Fact number 9" in dense.seen[0]
        assert index.search("fact number 9 garden shed", 1)[0].slug == "shed"
    finally:
        index.store.close()


def test_kept_vectors_are_the_models_own_and_the_oldest_go_first() -> None:
    model = Counting()
    kept = ChunkVectors(capacity=2)
    first = next(kept.embed({DENSE: model}, [["a b", "c d"]], 1, False))
    again = next(kept.embed({DENSE: model}, [["c d", "e f"]], 1, False))
    assert model.seen == ["a b", "c d", "e f"]
    np.testing.assert_array_equal(again[DENSE][0], first[DENSE][1])
    np.testing.assert_array_equal(again[DENSE][1], HashingEmbedder().embed_documents(["e f"])[0])
    next(kept.embed({DENSE: model}, [["a b"]], 1, False))  # evicted: embedded again
    assert model.seen == ["a b", "c d", "e f", "a b"]
    assert DENSE_ML not in again
