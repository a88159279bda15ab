"""BM25 vectors re-weighted when the corpus's average chunk length drifts: an
index that grew scores like one built fresh on the same pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate import Settings, Workspace, init_workspace, open_workspace, parse_config
from substrate.index import EdgeStore, SearchIndex, ServerStore, VectorStore
from substrate.index.bm25 import query_vector, question_keys, tokenize
from substrate.index.reweight import DRIFT, avgdl_for
from tests.embedders import HashingEmbedder

SHORT = {f"notes/short-{i}": f"Tea with Sam on day {i} in Porto." for i in range(12)}
LONG = {
    f"notes/long-{i}": " ".join(
        f"The garden plan for week {i} covers roses, tulips, compost, watering and Sam's tea."
        for _ in range(4)
    )
    for i in range(12)
}
QUERIES = ["tea with Sam", "garden roses compost", "Porto day 3"]


def workspace(root: Path, pages: dict[str, str]) -> Workspace:
    init_workspace(root)
    ws = open_workspace(root)
    for slug, text in pages.items():
        path = ws.concepts_dir / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {slug}\n---\n{text}\n")
    return ws


def bm25_scores(index: SearchIndex, query: str) -> dict[str, float]:
    vectors = index.embed_query(query)
    hits = index.store.search(
        vectors, query_vector(tokenize(query), question_keys(query)), 100, ["page"]
    )
    return {f"{h.payload['slug']}": round(h.score, 6) for h in hits.get("bm25", [])}


def store(kind: str, ws: Workspace) -> VectorStore:
    if kind == "edge":
        return EdgeStore(ws.state_dir / "qdrant")
    return ServerStore(":memory:", f"reweight_{ws.root.name}")


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_grown_index_scores_like_a_fresh_one(tmp_path: Path, kind: str) -> None:
    config = parse_config("")
    grown_ws = workspace(tmp_path / "grown", SHORT)
    grown = SearchIndex(Settings(grown_ws, config), HashingEmbedder(), store(kind, grown_ws))
    assert grown.maintain().reweighted == 0
    before = bm25_scores(grown, "tea with Sam")
    workspace(tmp_path / "grown", LONG)  # the corpus doubles with pages four times longer
    report = grown.maintain()
    assert report.embedded == len(LONG) and report.reweighted == len(SHORT)
    fresh_ws = workspace(tmp_path / "fresh", {**SHORT, **LONG})
    fresh = SearchIndex(Settings(fresh_ws, config), HashingEmbedder(), store(kind, fresh_ws))
    fresh.maintain()
    try:
        for query in QUERIES:
            assert bm25_scores(grown, query) == pytest.approx(bm25_scores(fresh, query), rel=1e-5)
        assert bm25_scores(grown, "tea with Sam")["notes/short-0"] != before["notes/short-0"]
    finally:
        grown.store.close()
        fresh.store.close()


def test_small_drift_keeps_the_shared_avgdl_and_rewrites_nothing(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws", SHORT)
    index = SearchIndex(
        Settings(ws, parse_config("")), HashingEmbedder(), EdgeStore(ws.state_dir / "q")
    )
    try:
        index.maintain()
        workspace(tmp_path / "ws", {"notes/one-more": "Tea with Ana on day 40 in Braga."})
        assert index.maintain().reweighted == 0
        assert index.maintain().embedded == 0  # and a no-op stays a no-op
    finally:
        index.store.close()


def test_the_shared_avgdl_moves_only_past_the_drift() -> None:
    assert avgdl_for(None, 7.0) == 7.0
    assert avgdl_for(10.0, 10.0 * (1 + DRIFT * 0.9)) == 10.0
    assert avgdl_for(10.0, 10.0 * (1 + DRIFT * 1.1)) == pytest.approx(11.1)
    assert avgdl_for(10.0, 10.0 * (1 - DRIFT * 1.1)) == pytest.approx(8.9)
