"""The lexical gate: BM25 keeps the weight its evidence earns.

Generated queries of two classes over the same fusion. A paraphrase: both
meaning signals put one page first, and BM25, sharing only the question's stray
words with other pages, returns a flat list of thin matches. A question that
names what its page says: BM25's best page covers much of the question and
stands clear of the next. The gate must let meaning lead the first and leave
the second to BM25, where the same fusion without it lets BM25's noise win the
first.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from substrate import parse_config
from substrate.config.tuning import resolve_substrate_tuning
from substrate.index import configured_fusion
from substrate.index.fusion import Fusion, fuse
from substrate.index.lexical_gate import LexicalGate, page_margin
from substrate.index.store import DENSE, DENSE_ML, SPARSE, StoreHit

SEEDS = range(40)


def shipped(toml: str = "") -> Fusion:
    return configured_fusion(resolve_substrate_tuning(parse_config(toml)), multilingual=True)


def hits(scores: dict[str, float]) -> list[StoreHit]:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return [StoreHit(s, {"slug": slug, "kind": "page", "text": slug}) for slug, s in ranked]


def meaning(rng: random.Random, pages: list[str], first: str) -> dict[str, list[StoreHit]]:
    """Both meaning signals: `first` clearly ahead, the rest spread below it."""
    out = {}
    for name in (DENSE, DENSE_ML):
        top = rng.uniform(0.45, 0.6)
        rest = {p: rng.uniform(0.1, top - 0.15) for p in pages if p != first}
        out[name] = hits(rest | {first: top})
    return out


def paraphrase(seed: int) -> tuple[dict[str, list[StoreHit]], float, str, str]:
    """(signals, BM25 coverage, the page meaning finds, BM25's noise page): BM25
    matches pages meaning does not find at all, thinly, none standing out."""
    rng = random.Random(seed)
    pages = [f"page-{i}" for i in range(rng.randint(30, 80))]
    matched = rng.sample(pages, rng.randint(3, 10))
    found = [p for p in pages if p not in matched]
    answer = rng.choice(found)
    signals = meaning(rng, found, answer)
    top = rng.uniform(3.0, 9.0)
    flat = [top * (1 - rng.uniform(0.0, 0.04) * i) for i in range(len(matched))]
    signals[SPARSE] = hits(dict(zip(matched, flat, strict=True)))
    return signals, rng.uniform(0.15, 0.25), answer, signals[SPARSE][0].payload["slug"]


def named(seed: int) -> tuple[dict[str, list[StoreHit]], float, str]:
    """(signals, BM25 coverage, BM25's page): meaning ranks that page second."""
    rng = random.Random(1000 + seed)
    pages = [f"page-{i}" for i in range(rng.randint(12, 40))]
    answer, other = rng.sample(pages, 2)
    signals = meaning(rng, pages, other)
    for name in (DENSE, DENSE_ML):  # the answer right under meaning's first page
        scores = {str(h.payload["slug"]): h.score for h in signals[name]}
        scores[answer] = scores[other] - rng.uniform(0.01, 0.05)
        signals[name] = hits(scores)
    matched = rng.sample([p for p in pages if p != answer], rng.randint(3, 10))
    top = rng.uniform(8.0, 20.0)
    rest = {p: top * rng.uniform(0.1, 0.5) for p in matched}
    signals[SPARSE] = hits(rest | {answer: top})
    return signals, rng.uniform(0.6, 1.0), answer


@pytest.mark.parametrize("seed", SEEDS)
def test_a_paraphrase_s_thin_word_matches_give_way_to_the_page_meaning_finds(seed: int) -> None:
    signals, coverage, answer, noise = paraphrase(seed)
    assert fuse(signals, shipped(), coverage)[0].slug == answer
    ungated = fuse(signals, shipped("[memory.substrate]\nsparse_gate_depth = 0.0\n"), coverage)
    assert ungated[0].slug == noise  # the same fusion without the gate: BM25's noise first


@pytest.mark.parametrize("seed", SEEDS)
def test_a_question_that_names_its_page_keeps_bm25_s_lead(seed: int) -> None:
    signals, coverage, answer = named(seed)
    assert fuse(signals, shipped(), coverage)[0].slug == answer


def test_the_share_kept_grows_with_coverage_and_margin_and_stays_within_depth() -> None:
    gate = shipped().gate
    rng = random.Random(7)
    for _ in range(500):
        c1, c2 = sorted(rng.uniform(0, 1) for _ in range(2))
        m1, m2 = sorted(rng.uniform(0, 1) for _ in range(2))
        assert gate.keeps(c1, m1) <= gate.keeps(c2, m1) <= gate.keeps(c2, m2)
        assert 1 - gate.depth <= gate.keeps(c1, m1) <= 1
    assert LexicalGate(0.0, gate.bias, gate.coverage, gate.margin).keeps(0.0, 0.0) == 1.0


def test_a_page_s_margin_reads_pages_not_chunks() -> None:
    best = {"a": StoreHit(10.0, {"slug": "a"}), "b": StoreHit(6.0, {"slug": "b"})}
    assert page_margin(best) == pytest.approx(0.4)
    assert page_margin({"a": best["a"]}) == 1.0
    assert page_margin({}) == 0.0


def chunked(seed: int) -> tuple[dict[str, list[StoreHit]], float]:
    """Pages of several chunks each, every signal scoring chunks at random, BM25's
    evidence thin (low coverage) so the gate weighs in."""
    rng = random.Random(2000 + seed)
    chunks = [(f"page-{p}", c) for p in range(rng.randint(5, 15)) for c in range(rng.randint(1, 4))]
    signals = {}
    for name, top in ((DENSE, 0.6), (DENSE_ML, 0.6), (SPARSE, 9.0)):
        picked = rng.sample(chunks, rng.randint(len(chunks) // 2, len(chunks)))
        signals[name] = sorted(
            (
                StoreHit(rng.uniform(0.05, 1.0) * top, {"slug": s, "chunk": c, "text": f"{s}#{c}"})
                for s, c in picked
            ),
            key=lambda h: -h.score,
        )
    return signals, rng.uniform(0.15, 0.3)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_gate_never_changes_which_chunk_a_page_shows(seed: int) -> None:
    """The gate weighs BM25 across pages; within a page found, the chunk the
    question's words hit stays the one shown."""
    signals, coverage = chunked(seed)
    gated = {h.slug: h.excerpt for h in fuse(signals, shipped(), coverage)}
    ungated_fusion = shipped("[memory.substrate]\nsparse_gate_depth = 0.0\n")
    ungated = {h.slug: h.excerpt for h in fuse(signals, ungated_fusion, coverage)}
    assert gated == ungated


def test_on_development_questions_the_gate_finds_more_where_words_differ_and_no_fewer_elsewhere() -> (
    None
):
    """Real store queries of the even half (`bench/fusion_fit.py`'s dump, each
    signal's first 51 chunks): every question there whose top 5 the gate
    changed, either way, and 40 natural ones it left alone. Without the gate
    the rewritten and unshared strata find fewer relevant pages."""
    path = Path(__file__).parents[2] / "data" / "gate_queries_even.json.gz"
    with gzip.open(path, "rt") as f:
        rows = json.load(f)
    ungated = shipped("[memory.substrate]\nsparse_gate_depth = 0.0\n")
    found: dict[tuple[bool, str], float] = {}
    for row in rows:
        signals = {
            name: [StoreHit(s, {"slug": slug, "kind": kind, "chunk": c}) for s, slug, kind, c in hs]
            for name, hs in row["signals"].items()
        }
        reworded = row["kind"] in ("rewritten", "unshared")
        for name, fusion in (("gated", shipped()), ("ungated", ungated)):
            top5 = {h.slug for h in fuse(signals, fusion, row["coverage"], limit=5)}
            share = len(top5 & set(row["relevant"])) / len(row["relevant"])
            found[reworded, name] = found.get((reworded, name), 0.0) + share
    assert found[True, "gated"] > found[True, "ungated"] + 10  # reworded: clearly more
    assert found[False, "gated"] >= found[False, "ungated"]  # named: no fewer
