from __future__ import annotations

import math

import pytest
from rank_bm25 import BM25Okapi

from substrate.index.bm25 import (
    Bm25Stats,
    chunk_keys,
    document_vector,
    query_vector,
    question_keys,
    tokenize,
)

CORPUS = [
    "Alice prefers green tea in the afternoon",
    "Bob drinks coffee every morning before running",
    "The team meeting moved to Tuesday morning",
    "Green tea and jasmine tea are Alice's favourites",
    "Running shoes for the half marathon in March",
    "Coffee beans from Ethiopia, roasted light",
    "Tuesday is piano lesson day for Mia",
    "The afternoon train to Porto leaves at 15:40",
]
QUERIES = ["green tea afternoon", "coffee morning", "running marathon", "tuesday piano", "tea tea"]


def test_tokenizer_lowercases_drops_stopwords_and_stems() -> None:
    assert tokenize("The Runners were RUNNING to the Meetings!") == ["runner", "run", "meet"]


def test_tokenizer_keeps_other_scripts() -> None:
    coffee, arabic = tokenize("القهوة العربية")  # Arabic words as their folded stems
    assert (coffee, arabic) == ("قهو", "عرب")
    assert tokenize("القهوة العربية 日本語 Café") == [coffee, arabic, "日本語", "café"]


def our_scores(docs: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    stats = Bm25Stats()
    for tokens in docs:
        stats.add(tokens)
    q = query_vector(query)
    qweights = dict(zip(q.indices, q.values, strict=True))
    idf_by_id = {}
    for tokens in docs:
        for t in tokens:
            idf_by_id[document_vector([t], 1, 1, 0).indices[0]] = stats.idf(t)
    scores = []
    for tokens in docs:
        d = document_vector(tokens, stats.avgdl, k1, b)
        scores.append(
            sum(
                qweights.get(i, 0.0) * idf_by_id[i] * v
                for i, v in zip(d.indices, d.values, strict=True)
            )
        )
    return scores


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25_with_qdrant_idf(query: str) -> None:
    docs = [tokenize(text) for text in CORPUS]
    reference = BM25Okapi(docs, k1=1.2, b=0.75)
    # rank-bm25 uses ln((N-df+0.5)/(df+0.5)) floored at eps*mean; Qdrant (and we) use
    # ln(1 + (N-df+0.5)/(df+0.5)), which never goes negative. Same TF part, same IDF here:
    n = len(docs)
    document_frequency: dict[str, int] = {}
    for tokens in docs:
        for t in set(tokens):
            document_frequency[t] = document_frequency.get(t, 0) + 1
    reference.idf = {
        t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in document_frequency.items()
    }
    expected = reference.get_scores(tokenize(query))
    got = our_scores(docs, tokenize(query), k1=1.2, b=0.75)
    assert got == pytest.approx(list(expected), abs=1e-6)
    assert sorted(range(n), key=lambda i: -got[i]) == sorted(range(n), key=lambda i: -expected[i])


def test_stats_add_and_remove_are_inverse(tmp_path) -> None:  # type: ignore[no-untyped-def]
    stats = Bm25Stats()
    stats.add(["a", "b", "a"])
    stats.add(["b", "c"])
    stats.remove(["a", "b", "a"])
    assert (stats.documents, stats.total_length, dict(stats.df)) == (1, 2, {"b": 1, "c": 1})
    stats.save(tmp_path / "s.json")
    again = Bm25Stats.load(tmp_path / "s.json")
    assert (again.documents, again.avgdl, again.df) == (1, 2.0, stats.df)


def test_unreadable_stats_file_means_empty_stats(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "s.json").write_text("{broken")
    assert Bm25Stats.load(tmp_path / "s.json").documents == 0


def test_name_keys_score_as_terms_but_do_not_lengthen_the_chunk() -> None:
    words = tokenize("ولد تسلا في سميليان")
    keys = chunk_keys("ولد تسلا في سميليان")
    plain = document_vector(words, 3.0, 1.2, 0.75)
    keyed = document_vector(words, 3.0, 1.2, 0.75, keys)
    weights = dict(zip(keyed.indices, keyed.values, strict=True))
    # The words weigh exactly what they weigh without keys (same length norm) ...
    assert {i: weights[i] for i in plain.indices} == dict(
        zip(plain.indices, plain.values, strict=True)
    )
    # ... and the query's name key meets the page's key for تسلا.
    query = query_vector(
        tokenize("When was Nikola Tesla born?"), question_keys("When was Nikola Tesla born?")
    )
    assert set(query.indices) & (set(weights) - set(plain.indices))


def test_stats_count_keys_in_document_frequency_not_in_length() -> None:
    stats = Bm25Stats()
    stats.add(["a", "b"], ["~tsl"])
    stats.add(["b"], ["~tsl", "~dnfr"])
    assert (stats.documents, stats.total_length) == (2, 3)
    assert stats.df["~tsl"] == 2
    stats.remove(["b"], ["~tsl", "~dnfr"])
    assert (stats.total_length, dict(stats.df)) == (2, {"a": 1, "b": 1, "~tsl": 1})
