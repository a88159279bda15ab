"""The hybrid index, run identically against both store adapters."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from substrate import Settings
from substrate.index import Capability, EdgeStore, SearchIndex, ServerStore, VectorStore
from substrate.index.chunks import chunk_page, page_text
from substrate.index.unit_vectors import UnitVectors
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder

PAGES = {
    "people/sam": "---\ntitle: Sam\n---\nSam is allergic to shellfish and carries an EpiPen.",
    "places/lisbon": "---\ntitle: Lisbon\norigin_date: 2022-05-01\n---\nThe family lives in Graça, Lisbon.",
    "projects/atlas": "---\ntitle: Atlas search\nsource: import:chatgpt\n---\n# Atlas search\nHybrid search launch in January.",
    "notes/tea": "---\ntitle: Tea\n---\nAlice prefers green tea in the afternoon.",
}


def make_store(kind: str, root: Path) -> VectorStore:
    if kind == "edge":
        return EdgeStore(root / "qdrant")
    if kind == "edge-int8":
        return EdgeStore(root / "qdrant", quantization="int8")
    return ServerStore(os.environ.get("QDRANT_URL", ":memory:"), f"test_{root.name}")


@pytest.fixture(params=["edge", "edge-int8", "server"])
def index(
    request: pytest.FixtureRequest, settings: Settings, write_page: PageWriter
) -> Iterator[SearchIndex]:
    for slug, text in PAGES.items():
        write_page(slug, text)
    store = make_store(request.param, settings.workspace.state_dir)
    idx = SearchIndex(settings, HashingEmbedder(), store, HashingEmbedder(48))
    yield idx
    idx.store.close()


def test_maintain_embeds_every_page_once(index: SearchIndex) -> None:
    first = index.maintain()
    assert (first.embedded, first.deleted, first.unchanged, first.rebuilt) == (4, 0, 0, True)
    second = index.maintain()
    assert (second.embedded, second.chunks, second.deleted, second.unchanged, second.rebuilt) == (
        0,
        0,
        0,
        4,
        False,
    )


def test_noop_maintain_rewrites_no_derived_file(index: SearchIndex, settings: Settings) -> None:
    index.maintain()
    state = settings.workspace.state_dir
    files = [state / "index-state.json", state / "bm25-stats.json"]
    before = [f.stat().st_mtime_ns for f in files]
    assert index.maintain().embedded == 0
    assert [f.stat().st_mtime_ns for f in files] == before


def test_search_finds_by_words_and_reports_both_ranks(index: SearchIndex) -> None:
    index.maintain()
    top = index.search("allergic to shellfish", k=3)[0]
    assert top.slug == "people/sam"
    assert top.sparse_rank == 1
    assert top.dense_rank == 1
    assert top.excerpt == "Sam is allergic to shellfish and carries an EpiPen."
    assert top.title == "Sam"


def test_hit_carries_provenance(index: SearchIndex) -> None:
    index.maintain()
    hit = next(h for h in index.search("hybrid search launch", k=4) if h.slug == "projects/atlas")
    assert hit.source == "import:chatgpt"
    lisbon = next(h for h in index.search("family Lisbon Graça", k=4) if h.slug == "places/lisbon")
    assert lisbon.fresh_at == "2022-05-01T00:00:00Z"


def test_changed_page_is_reembedded_and_old_text_is_gone(
    index: SearchIndex, write_page: PageWriter
) -> None:
    index.maintain()
    write_page(
        "notes/tea", "---\ntitle: Tea\n---\nAlice switched to black coffee.", mtime=2_000_000_000
    )
    report = index.maintain()
    assert (report.embedded, report.unchanged) == (1, 3)
    assert all(h.slug != "notes/tea" for h in index.search("green afternoon", k=4) if h.sparse_rank)
    assert index.search("black coffee", k=1)[0].slug == "notes/tea"


def test_touched_but_unchanged_page_is_not_reembedded(
    index: SearchIndex, settings: Settings
) -> None:
    index.maintain()
    os.utime(settings.workspace.concepts_dir / "notes/tea.md", (2_000_000_000, 2_000_000_000))
    assert index.maintain().embedded == 0


def test_deleted_page_leaves_the_index(index: SearchIndex, settings: Settings) -> None:
    index.maintain()
    (settings.workspace.concepts_dir / "people/sam.md").unlink()
    report = index.maintain()
    assert report.deleted == 1
    assert all(h.slug != "people/sam" for h in index.search("allergic shellfish EpiPen", k=10))


def test_maintain_of_named_pages_reads_them_alone(
    index: SearchIndex, settings: Settings, write_page: PageWriter
) -> None:
    index.maintain()
    write_page("notes/tea", "---\ntitle: Tea\n---\nAlice now drinks rooibos with honey.")
    write_page("places/lisbon", "---\ntitle: Lisbon\n---\nThe family moved to Porto.")
    (settings.workspace.concepts_dir / "people/sam.md").unlink()
    report = index.maintain(only={"notes/tea", "people/sam"})
    assert (report.embedded, report.deleted, report.pages) == (1, 1, ("notes/tea",))
    assert index.search("rooibos honey", k=3)[0].slug == "notes/tea"
    assert all(h.slug != "people/sam" for h in index.search("allergic shellfish EpiPen", k=10))
    assert index.search("Hybrid search launch", k=3)[0].slug == "projects/atlas"
    assert index.maintain().pages == ("places/lisbon",)  # a full maintain sees the rest


def test_capabilities_are_excluded_unless_asked_for(index: SearchIndex) -> None:
    caps = [
        Capability(
            "capability/cli/memory-search", "memory search", "Hybrid search over the concept pages."
        )
    ]
    index.maintain(caps)
    assert all(h.kind == "page" for h in index.search("memory search concept pages", k=10))
    with_caps = index.search("memory search concept pages", k=10, include_capabilities=True)
    cap = next(h for h in with_caps if h.kind == "capability")
    assert cap.fresh_at is None


def test_searches_name_the_right_pages_through_edits_deletes_and_a_reopen(
    index: SearchIndex, settings: Settings, write_page: PageWriter
) -> None:
    """The edge store names hits from a map it keeps beside the shard: a search
    before the changes must not leave it behind them."""
    index.maintain()
    index.search("shellfish", k=3)  # the first search builds the map
    (settings.workspace.concepts_dir / "notes/tea.md").unlink()
    long_body = "\n\n".join(f"## Part {i}\n" + "filler words here " * 60 for i in range(6))
    write_page("people/sam", f"---\ntitle: Sam\n---\n{long_body}\nSam keeps a green EpiPen.")
    index.maintain(
        [Capability("capability/cli/memory-card", "memory card", "Green tea card preview.")]
    )
    query = "green tea EpiPen"
    before = [(h.slug, h.kind, h.excerpt) for h in index.search(query, k=10)]
    assert "notes/tea" not in {slug for slug, _, _ in before}
    assert all(kind == "page" for _, kind, _ in before)  # the capability is filtered out
    assert next(e for s, _, e in before if s == "people/sam").endswith("green EpiPen.")
    with_caps = index.search(query, k=10, include_capabilities=True)
    assert "capability/cli/memory-card" in {h.slug for h in with_caps}
    if isinstance(index.store, EdgeStore):  # a new process builds the map by a scan
        index.store.close()
        reopened = EdgeStore(settings.workspace.state_dir / "qdrant")
        again = SearchIndex(settings, HashingEmbedder(), reopened, HashingEmbedder(48))
        try:
            assert [(h.slug, h.kind, h.excerpt) for h in again.search(query, k=10)] == before
        finally:
            reopened.close()


def test_changed_embedder_identity_rebuilds(index: SearchIndex, settings: Settings) -> None:
    index.maintain()
    other = SearchIndex(settings, HashingEmbedder(dim=32), index.store, HashingEmbedder(48))
    report = other.maintain()
    assert report.rebuilt and report.embedded == 4
    assert other.search("allergic shellfish", k=1)[0].slug == "people/sam"


def test_multilingual_model_change_or_switch_off_rebuilds(
    index: SearchIndex, settings: Settings
) -> None:
    index.maintain()
    swapped = SearchIndex(settings, HashingEmbedder(), index.store, HashingEmbedder(40))
    assert swapped.maintain().rebuilt
    assert not swapped.maintain().rebuilt
    off = SearchIndex(settings, HashingEmbedder(), index.store)
    report = off.maintain()
    assert report.rebuilt and report.embedded == 4
    hit = off.search("allergic shellfish", k=1)[0]
    assert (hit.slug, hit.dense_ml_rank, hit.dense_ml_score) == ("people/sam", None, None)


def test_second_vector_is_stored_and_searched_in_both_adapters(index: SearchIndex) -> None:
    index.maintain()
    hit = index.search("allergic shellfish", k=1)[0]
    assert hit.slug == "people/sam"
    assert hit.dense_ml_rank == 1 and hit.dense_ml_score is not None
    assert "dense_ml" in index.identity and "hashing-bow;dim=48" in index.identity


def test_rebuild_flag_reembeds_everything(index: SearchIndex) -> None:
    index.maintain()
    report = index.maintain(rebuild=True)
    assert report.rebuilt and report.embedded == 4


def test_lost_store_is_detected_and_rebuilt(settings: Settings, write_page: PageWriter) -> None:
    write_page("a", "alpha beta")
    first = SearchIndex(settings, HashingEmbedder(), ServerStore(":memory:", "lost"))
    first.maintain()
    first.store.close()
    fresh_store = SearchIndex(settings, HashingEmbedder(), ServerStore(":memory:", "lost"))
    assert fresh_store.maintain().rebuilt


def test_adapters_agree_on_results(
    settings: Settings, write_page: PageWriter, tmp_path: Path
) -> None:
    for slug, text in PAGES.items():
        write_page(slug, text)
    results = []
    for kind in ("edge", "server"):
        idx = SearchIndex(settings, HashingEmbedder(), make_store(kind, tmp_path / kind))
        idx.maintain(rebuild=True)
        results.append(
            [(h.slug, h.dense_rank, h.sparse_rank) for h in idx.search("search launch tea", k=4)]
        )
        idx.store.close()
    assert results[0] == results[1]


def test_second_process_gets_a_clear_error(settings: Settings, tmp_path: Path) -> None:
    from substrate.errors import StoreUnavailableError

    store = EdgeStore(tmp_path / "shard")
    store.ensure({"dense": 8})
    with pytest.raises(StoreUnavailableError, match="held by another process"):
        EdgeStore(tmp_path / "shard")
    store.close()


def test_excerpt_centres_on_the_lines_that_match_the_query() -> None:
    from substrate.index import excerpt_for, tokenize

    body = (
        "\n".join(f"filler line number {i} about nothing much" for i in range(40))
        + "\nthe spare key is under the pot"
    )
    excerpt = excerpt_for(body, set(tokenize("spare key")), limit=120)
    assert excerpt.endswith("the spare key is under the pot")
    assert excerpt.startswith("…")
    assert len(excerpt) <= 122
    assert excerpt_for("short text", {"x"}) == "short text"


def test_excerpt_centres_on_the_arabic_line_naming_the_querys_name() -> None:
    from substrate.index import excerpt_for
    from substrate.index.bm25 import question_keys

    filler = ["كان الطقس باردا في تلك الليلة الطويلة"] * 6
    body = "\n".join([*filler, "ثم وصل نيكولا تسلا إلى المدينة", *filler])
    excerpt = excerpt_for(body, set(question_keys("When did Nikola Tesla arrive?")), limit=120)
    assert "تسلا" in excerpt and excerpt.startswith("…")


def _hits(*pairs: tuple[str, float]) -> list:  # type: ignore[type-arg]
    from substrate.index import StoreHit

    return [StoreHit(score, {"slug": slug, "title": slug, "text": slug}) for slug, score in pairs]


def test_fusion_ranks_each_signal_by_best_chunk_per_page() -> None:
    from substrate.index import Fusion, fuse

    dense = _hits(("a", 0.9), ("b", 0.8), ("a", 0.7), ("c", 0.1))
    sparse = _hits(("c", 12.0), ("b", 6.0))
    half = {"dense": 0.5, "bm25": 0.5}
    rrf = fuse({"dense": dense, "bm25": sparse}, Fusion(half, "rrf"))
    # 1/63 + 1/61 > 2/62: ranks 3 and 1 edge out ranks 2 and 2.
    assert [(h.slug, h.dense_rank, h.sparse_rank) for h in rrf] == [
        ("c", 3, 1),
        ("b", 2, 2),
        ("a", 1, None),
    ]
    minmax = fuse({"dense": dense, "bm25": sparse}, Fusion(half))
    # dense scaled over [0.1, 0.9]: a=1, b=0.875, c=0; sparse over [6, 12]: c=1, b=0.
    assert [h.slug for h in minmax] == ["a", "c", "b"]
    assert minmax[0].score == pytest.approx(0.5)
    assert fuse({"dense": dense, "bm25": sparse}, Fusion({"bm25": 1.0}))[0].slug == "c"
    assert fuse({"dense": dense, "bm25": sparse}, Fusion(half), limit=2) == minmax[:2]


def test_fusion_lets_the_multilingual_signal_decide_a_query_sharing_no_terms() -> None:
    """An English question over Arabic pages: the English model's cosines are flat
    noise and BM25's only hit shares a year with the question. Plain min-max
    stretches both to full weight; the guards leave the decision to `dense_ml`."""
    from substrate.index import Fusion, fuse

    signals = {
        "dense": _hits(("year-page", 0.21), ("other", 0.20), ("answer", 0.19), ("x", 0.17)),
        "bm25": _hits(("year-page", 4.0)),
        "dense_ml": _hits(("answer", 0.55), ("x", 0.30), ("other", 0.25), ("year-page", 0.20)),
    }
    weights = {"dense": 0.3, "bm25": 0.7, "dense_ml": 0.3}
    assert fuse(signals, Fusion(weights), sparse_coverage=0.04)[0].slug == "year-page"
    guarded = Fusion(weights, min_span={"dense": 0.3}, min_coverage=0.15)
    ranked = fuse(signals, guarded, sparse_coverage=0.04)
    assert ranked[0].slug == "answer"
    assert (ranked[0].dense_ml_rank, ranked[0].dense_rank, ranked[0].sparse_rank) == (1, 3, None)
    # The same guards leave a query that does share terms to BM25 and dense as before.
    full = fuse(signals, guarded, sparse_coverage=0.6)
    assert full[0].slug == "year-page"


def test_coverage_is_the_best_chunks_share_of_the_ideal_bm25(
    index: SearchIndex, settings: Settings
) -> None:
    index.maintain()
    hits = index.store.search({}, _query("allergic shellfish"), 10, ["page"])["bm25"]
    coverage = index.coverage("allergic shellfish", hits)
    assert 0.2 < coverage < 1.0
    unknown = index.coverage("allergic zanzibar quokka", hits[:1])
    assert unknown < coverage / 2  # two of its three terms are in no page


def _query(text: str):  # type: ignore[no-untyped-def]
    from substrate.index.bm25 import query_vector, tokenize

    return query_vector(tokenize(text))


def test_lost_bm25_stats_are_rebuilt_from_the_store(index: SearchIndex, settings: Settings) -> None:
    import json as _json

    index.maintain()
    stats_path = settings.workspace.state_dir / "bm25-stats.json"
    before = _json.loads(stats_path.read_text())
    stats_path.unlink()
    report = index.maintain()
    assert report.embedded == 0
    assert _json.loads(stats_path.read_text()) == before


def test_warm_loads_the_corpus_statistics_a_later_search_needs(
    index: SearchIndex, settings: Settings
) -> None:
    index.maintain()
    store = index.store
    later = SearchIndex(settings, HashingEmbedder(), store, HashingEmbedder(48))  # a new process
    later.warm()  # "warm up" shares no term with any page
    (settings.workspace.state_dir / "bm25-stats.json").unlink()
    hits = store.search({}, _query("allergic shellfish"), 10, ["page"])["bm25"]
    assert later.coverage("allergic shellfish", hits) == index.coverage("allergic shellfish", hits)
    assert later.coverage("allergic shellfish", hits) > 0.2


def test_an_english_name_finds_the_arabic_page_that_spells_it(
    index: SearchIndex, write_page: PageWriter
) -> None:
    write_page("ar/tesla", "---\ntitle: مخترع\n---\nولد نيكولا تسلا في سميليان عام 1856.")
    write_page("ar/denver", "---\ntitle: فريق\n---\nفاز فريق دنفر برونكو بالمباراة.")
    index.maintain()
    hit = index.search("When was Nikola Tesla born?", k=1)[0]
    assert (hit.slug, hit.sparse_rank) == ("ar/tesla", 1)
    hit = index.search("Who did the Broncos beat?", k=1)[0]
    assert (hit.slug, hit.sparse_rank) == ("ar/denver", 1)
    # An English query over English pages scores as before: no English page has keys.
    assert index.search("Sam allergic", k=1)[0].slug == "people/sam"


CONTEXT_PAGE = "---\ntitle: Notes\n---\n# Garden\nalpha beta gamma\n# Kitchen\nomega delta"


def _page_context(settings: Settings, tokens: int) -> Settings:
    substrate = {**settings.config.substrate, "multilingual_page_context": tokens}
    return Settings(settings.workspace, replace(settings.config, substrate=substrate))


def _ml_score(settings: Settings, store: VectorStore, query: str) -> float | None:
    index = SearchIndex(settings, HashingEmbedder(), store, HashingEmbedder(48))
    index.maintain()
    return next(h for h in index.search(query, k=5) if h.slug == "notes/two").dense_ml_score


def test_a_short_pages_chunks_carry_the_whole_page_in_dense_ml(
    settings: Settings, write_page: PageWriter, tmp_path: Path
) -> None:
    write_page("notes/two", CONTEXT_PAGE)
    store = EdgeStore(tmp_path / "q")
    with_context = _ml_score(settings, store, "alpha omega")
    ml = HashingEmbedder(48)
    chunks = chunk_page(
        "Notes", CONTEXT_PAGE.split("---\n")[2], HashingEmbedder().count_tokens, 256
    )
    assert len(chunks) == 2
    page = ml.embed_documents([page_text("Notes", chunks)])[0]
    query = ml.embed_query("alpha omega")
    blended = [
        (v + page) / np.linalg.norm(v + page) for v in ml.embed_documents([c.text for c in chunks])
    ]
    assert with_context == pytest.approx(max(float(b @ query) for b in blended), abs=1e-5)

    off = _page_context(settings, 0)
    alone = _ml_score(off, store, "alpha omega")  # a knob change rebuilds the index
    chunk_only = max(float(v @ query) for v in ml.embed_documents([c.text for c in chunks]))
    assert alone == pytest.approx(chunk_only, abs=1e-5)
    assert with_context is not None and alone is not None and with_context > alone

    too_long = _page_context(settings, 5)
    assert _ml_score(too_long, store, "alpha omega") == pytest.approx(chunk_only, abs=1e-5)
    store.close()


def test_best_chunks_gives_each_named_page_its_nearest_chunk_only(index: SearchIndex) -> None:
    index.maintain()
    vectors = index.embed_query("green tea in the afternoon")
    best = index.best_chunks(vectors, ["notes/tea", "people/sam"])
    assert set(best) == {"notes/tea", "people/sam"}  # only the pages asked for
    assert best["notes/tea"][0] > best["people/sam"][0]
    assert "green tea" in best["notes/tea"][1]
    assert index.best_chunks(vectors, []) == {}


def test_a_chunk_of_facts_no_longer_current_ranks_below_the_value_now(
    index: SearchIndex, write_page: PageWriter
) -> None:
    section = "<!-- memory:facts -->\n## Facts\n{}\n<!-- /memory:facts -->\n"
    bullet = "- [2024-03-01] I keep my bike in the shed by the river. <!-- e:{} -->"
    write_page("b/now", "---\ntitle: Bikes\n---\n" + section.format(bullet.format("aaaaaaaaaaa1")))
    write_page(
        "a/then",  # first on a tie
        "---\ntitle: Bikes\n---\n"
        + section.format("### Earlier\n" + bullet.format("aaaaaaaaaaa2")),  # moved there by hand
    )
    index.maintain()
    hits = index.search("where do I keep my bike", 5)
    order = [h.slug for h in hits]
    assert order.index("b/now") < order.index("a/then")  # same words: the current one first
    old = next(h for h in hits if h.slug == "a/then")
    assert old.kind == "page" and "was: I keep my bike" in old.excerpt  # still found, marked


def test_a_page_without_units_scores_nothing(tmp_path: Path) -> None:
    """A page whose facts are all forgotten has no unit: its file holds none,
    and scoring the page finds nothing instead of failing."""
    units = UnitVectors(tmp_path / "units")
    units.write("me/travel", "h1", [], np.zeros((0, 48), dtype=np.float32))
    assert units.scores(np.ones(48, dtype=np.float32), [("me/travel", "h1")]) == {}


def test_the_first_five_are_the_same_whatever_k(settings: Settings, write_page: PageWriter) -> None:
    """A caller asking for more results gets the same first five, in the same
    order and with the same scores, over a corpus whose chunks outnumber what
    a small k fetches."""
    import random

    words = (
        "ferry harbour ticket kayak museum garden recipe budget invoice plumber winter "
        "boiler quartet cello lesson passport visa hotel train schedule doctor"
    ).split()
    rng = random.Random(7)
    for i in range(140):
        lines = [" ".join(rng.sample(words, 6)) + f" note {i} line {j}." for j in range(3)]
        write_page(f"notes/n{i}", f"---\ntitle: Note {i}\n---\n" + "\n\n".join(lines))
    for i in range(60):  # one word's BM25 tied across the edge of what k=5 fetches
        write_page(f"zither/z{i}", f"---\ntitle: Zither {i}\n---\nA zither lesson, take {i}.")
    idx = SearchIndex(
        settings,
        HashingEmbedder(),
        EdgeStore(settings.workspace.state_dir / "q"),
        HashingEmbedder(48),
    )
    try:
        idx.maintain()
        for query in ("plumber in winter", "ferry ticket to the harbour", "cello lesson", "zither"):
            firsts = {
                k: [(h.slug, round(h.score, 9)) for h in idx.search(query, k)[:5]]
                for k in (5, 10, 20, 50)
            }
            assert firsts[10] == firsts[5] and firsts[20] == firsts[5] and firsts[50] == firsts[5]
    finally:
        idx.store.close()


def _quantized(settings: Settings, mode: str) -> Settings:
    substrate = {**settings.config.substrate, "dense_quantization": mode}
    return Settings(settings.workspace, replace(settings.config, substrate=substrate))


def test_a_shard_keeps_its_quantization_until_a_rebuild_and_doctor_says_so(
    settings: Settings, write_page: PageWriter
) -> None:
    """Changing `dense_quantization` never re-embeds a workspace by itself: the
    shard keeps what it was made with, doctor reports the difference, and a
    rebuild applies the setting; the scores are the same either way."""
    from substrate.index.consistency import index_problems
    from substrate.pages import load_page_index

    for slug, text in PAGES.items():
        write_page(slug, text)
    path = settings.workspace.state_dir / "qdrant"
    before = _quantized(settings, "off")
    index = SearchIndex(before, HashingEmbedder(), EdgeStore(path, "off"), HashingEmbedder(48))
    index.maintain()
    plain = [(h.slug, round(h.score, 6)) for h in index.search("allergic to shellfish", 4)]
    index.store.close()

    after = _quantized(settings, "int8")
    reopened = SearchIndex(after, HashingEmbedder(), EdgeStore(path, "int8"), HashingEmbedder(48))
    assert reopened.store.quantization == "off"  # as it was made
    assert reopened.maintain().rebuilt is False  # the setting alone re-embeds nothing
    pages = load_page_index(after.workspace)
    [problem] = index_problems(after, reopened, pages)
    assert problem.kind == "index_quantization" and "float32 only" in problem.message
    assert reopened.maintain(rebuild=True).rebuilt
    assert reopened.store.quantization == "int8"
    assert [p.kind for p in index_problems(after, reopened, pages)] == []
    quantized = [(h.slug, round(h.score, 6)) for h in reopened.search("allergic to shellfish", 4)]
    assert quantized == plain  # rescored with the full vectors: the same scores
    reopened.store.close()
    again = EdgeStore(path, "off")
    assert again.quantization == "int8"  # read back from the shard's own record
    again.close()


def test_an_episode_search_keeps_bm25_s_full_weight_where_a_page_search_gates_it(
    index: SearchIndex,
) -> None:
    """A conversation's windows share its names, so a flat BM25 list among them
    is how a named question looks: only page searches read the lexical gate."""
    rng = random.Random(3)
    for _ in range(200):
        coverage, margin = rng.uniform(0, 1), rng.uniform(0, 1)
        assert index.fusion_for("episode").gate.keeps(coverage, margin) == 1.0
        for kind in ("page", "all"):
            assert index.fusion_for(kind).gate.keeps(coverage, margin) < 1.0
