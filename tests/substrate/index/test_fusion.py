"""Fusion: which signal decides for a query.

The unit tests build store results by hand; the slow ones run the bundled
models over a small corpus built so that the question's wrapping words match
many wrong pages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.settings_loader import build_settings
from substrate import Settings
from substrate.index import EdgeStore, SearchIndex
from substrate.index.bm25 import query_terms, tokenize
from substrate.index.fusion import ANCHOR_RANK, Fusion, fuse
from substrate.index.search_index import open_search_index
from substrate.index.store import DENSE, SPARSE, StoreHit
from tests.conftest import PageWriter

SLUGS = [f"p{i}" for i in range(10)]


def hits(scores: dict[str, float]) -> list[StoreHit]:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return [StoreHit(s, {"slug": slug, "kind": "page", "text": slug}) for slug, s in ranked]


def signals(dense_top: float) -> dict[str, list[StoreHit]]:
    """BM25 ranks p0..p8 strongly; the dense signal ranks p9 first at `dense_top`,
    the rest flat below it."""
    sparse = {slug: 10.0 - i for i, slug in enumerate(SLUGS[:9])}
    dense = {slug: 0.2 for slug in SLUGS[:9]} | {"p9": dense_top}
    return {SPARSE: hits(sparse), DENSE: hits(dense)}


def test_the_dense_best_page_is_kept_in_the_top_five_when_confident() -> None:
    fusion = Fusion({DENSE: 0.1, SPARSE: 0.9}, anchor_floor=0.3)
    ranked = fuse(signals(0.45), fusion)
    assert [h.slug for h in ranked].index("p9") == ANCHOR_RANK - 1
    scores = [h.score for h in ranked]
    assert scores == sorted(scores, reverse=True)  # a caller re-sorting agrees


def test_a_dense_best_page_under_the_floor_is_left_where_fusion_put_it() -> None:
    fusion = Fusion({DENSE: 0.1, SPARSE: 0.9}, anchor_floor=0.3)
    off = Fusion({DENSE: 0.1, SPARSE: 0.9})
    below = [h.slug for h in fuse(signals(0.25), fusion)]
    assert below == [h.slug for h in fuse(signals(0.25), off)]
    assert "p9" not in below[:ANCHOR_RANK]
    assert "p9" not in [h.slug for h in fuse(signals(0.45), off)][:ANCHOR_RANK]


def test_a_chunk_of_old_facts_scores_below_the_same_match_on_a_current_one() -> None:
    def one(slug: str, kind: str, score: float) -> StoreHit:
        return StoreHit(score, {"slug": slug, "kind": kind, "text": slug})

    matched = {
        DENSE: [one("a/then", "history", 0.6), one("b/now", "page", 0.6), one("c", "page", 0.1)],
        SPARSE: [one("a/then", "history", 5.0), one("b/now", "page", 5.0), one("c", "page", 1.0)],
    }
    ranked = fuse(matched, Fusion({DENSE: 0.5, SPARSE: 0.5}))
    assert [h.slug for h in ranked] == ["b/now", "a/then", "c"]
    assert ranked[1].kind == "page"  # a page, whichever of its chunks is shown


def test_query_stopwords_leave_the_question_s_content_words() -> None:
    terms = query_terms("I've been wondering lately, could you suggest some tips for my sourdough?")
    assert terms == tokenize("sourdough")


PARAPHRASE_PAGE = (
    "---\ntitle: Stage fright\n---\n"
    "Breathing slowly and rehearsing out loud keep the jitters down before a talk."
)
DISTRACTORS = {
    "garden": "Tips I was given lately for the garden: water the tomatoes early.",
    "recipes": "Recipe ideas I wanted to try: something with lentils, really quick.",
    "car": "The mechanic might suggest new brakes; sure, I'll think about it.",
    "books": "Book recommendations from Sam: anything by Le Guin, a bit of Borges.",
    "travel": "Travel advice for Porto: help yourself to the tram, please tip the guide.",
    "office": "In the office I present the weekly numbers in front of the team.",
    "choir": "The choir performs in front of people every December.",
    "lake": "The lake is calm at dawn; people swim in front of the boathouse.",
    "slides": "Presenting the quarterly numbers: the slides sit in front of the folder.",
    "climbing": "Nerves of steel: the climbing guide people swear by, calm and patient.",
    "app": "The Calm app renews in May; present the receipt to people in accounts.",
    "market": "People crowd in front of the market stalls when the vendors are presenting.",
}
QUESTION = "Could you suggest some tips, I've been wondering lately how to calm my nerves when presenting in front of people?"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, object]]:
    from substrate.index.embedding import FastembedEmbedder
    from substrate.index.use_embedder import shared_use

    cache = tmp_path_factory.mktemp("models")
    yield FastembedEmbedder("all-MiniLM-L6-v2-int8", cache), shared_use(cache)


def real_index(settings: Settings, models: tuple[object, object]) -> SearchIndex:
    minilm, use = models
    index = open_search_index(settings, minilm, use)  # type: ignore[arg-type]
    assert isinstance(index.store, EdgeStore)
    index.maintain()
    return index


@pytest.mark.slow
@pytest.mark.parametrize(
    "weights",
    ["", "dense_weight = 0.1\nsparse_weight = 0.9\nmultilingual_weight = 0.1\n"],
    ids=["default", "lexical-heavy"],
)
def test_a_question_sharing_no_term_with_its_page_finds_it(
    settings: Settings, write_page: PageWriter, models: tuple[object, object], weights: str
) -> None:
    """Even where BM25 outweighs meaning, MiniLM's confident best page stays in
    the top 5 (without the anchor the lexical-heavy weights lose it)."""
    config = settings.workspace.config_path
    config.write_text(
        config.read_text().replace("[memory.substrate]\n", f"[memory.substrate]\n{weights}", 1)
    )
    settings = build_settings(settings.workspace.root)
    write_page("stage-fright", PARAPHRASE_PAGE)
    for slug, body in DISTRACTORS.items():
        write_page(slug, f"# {slug.title()}\n{body}")
    page_terms = set(tokenize(PARAPHRASE_PAGE))
    assert not set(query_terms(QUESTION)) & page_terms  # no shared word, even stemmed
    index = real_index(settings, models)
    ranked = [h.slug for h in index.search(QUESTION, 5)]
    assert "stage-fright" in ranked, ranked
    index.store.close()


@pytest.mark.slow
def test_a_question_whose_only_signal_is_a_rare_token_finds_its_page(
    settings: Settings, write_page: PageWriter, models: tuple[object, object]
) -> None:
    write_page("storage", "# Storage unit\nLocker ZQ-4471 holds the winter tyres.")
    write_page("garage", "# Garage\nThe winter tyres go on in November at the garage.")
    write_page("cellar", "# Cellar\nThe cellar holds the camping gear and spare tyres.")
    for slug, body in DISTRACTORS.items():
        write_page(slug, f"# {slug.title()}\n{body}")
    index = real_index(settings, models)
    found = index.search("what is in ZQ-4471", 5)
    assert found[0].slug == "storage", [h.slug for h in found]
    assert found[0].sparse_rank == 1
    index.store.close()
