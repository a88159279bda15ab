"""BM25 as sparse vectors: tokenizer, corpus statistics, document and query vectors.

Scores are split between us and Qdrant. A document's vector holds each term's
saturated frequency, tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)); a query's
vector holds each term's count; the collection's `bm25` sparse vector uses
Qdrant's IDF modifier, idf = ln(1 + (N − df + 0.5)/(df + 0.5)). The dot
product is then exactly BM25. rank-bm25's `BM25Okapi` uses
ln((N − df + 0.5)/(df + 0.5)) with an epsilon floor instead, which goes
negative for terms in over half the documents; with Qdrant's IDF substituted
the two agree to float precision (tests/substrate/index/test_bm25.py).

Tokens: see `tokenize`; Arabic handling is in `substrate.index.arabic`. Beside its
words, a chunk with Arabic words carries name keys (`substrate.index.name_keys`), so a
Latin-script name in a query meets its Arabic spelling; keys are terms with
their own IDF and saturation but do not count towards a chunk's length, so
the words of an Arabic chunk score exactly as without them. Changing what a
term is changes every sparse vector, so `TOKENIZER` is part of the index
identity and a change re-indexes.

Term ids are CRC32 hashes of the token, so vectors need no shared vocabulary
and move between store adapters unchanged.
"""

from __future__ import annotations

import json
import math
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import py_rust_stemmers

from substrate.errors import InvalidInputError
from substrate.index.arabic import (
    ARABIC_STOPWORDS,
    arabic_term,
    fold_arabic,
    has_arabic,
    strip_marks,
)
from substrate.index.name_keys import page_keys, query_keys
from substrate.safety.patterns import runs
from substrate.safety.safe_files import MAX_FILE_BYTES, read_regular_file, write_atomic

_WORD = runs(r"\w+")
TOKENIZER = "words-en-snowball+ar-snowball-folded+name-keys-3"

# A compact English stopword list (function words only: no content words,
# so "key", "token", "system" stay searchable).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not of off on once only
    or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would
    you your yours yourself yourselves""".split()
)


@lru_cache(maxsize=4)
def _stemmer(language: str) -> py_rust_stemmers.SnowballStemmer:
    return py_rust_stemmers.SnowballStemmer(language)


def tokenize(text: str) -> list[str]:
    """Lowercased words of any script, stopwords dropped; Arabic words as
    `arabic_term`s, every other word as its English stem."""
    text = text.lower()
    if not has_arabic(text):
        words = [w for w in _WORD.findall(text) if w not in STOPWORDS]
        return _stemmer("english").stem_words(words) if words else []
    out = []
    english = _stemmer("english")
    for word in _WORD.findall(strip_marks(text)):
        if not has_arabic(word):
            if word not in STOPWORDS:
                out.append(english.stem_word(word))
        elif fold_arabic(word) not in ARABIC_STOPWORDS:
            out.append(arabic_term(word))
    return out


# Words a question carries that say nothing about what it asks for: the tails
# of contractions ("I've", "didn't") and the wrapping of a request ("any tips
# you might suggest?"). Dropped from the query only — pages keep them — because
# on questions worded their own way (LongMemEval's preference questions) they
# were most of BM25's matches, and all of them against the wrong pages.
QUERY_STOPWORDS = frozenset(
    tokenize(
        "ve m s ll d re don t didn doesn isn wasn aren couldn wouldn shouldn "
        "suggest suggestions recommend recommendations tips ideas advice think "
        "wondering lately bit something anything really sure might help please"
    )
)


def query_terms(text: str) -> list[str]:
    """A query's BM25 terms: `tokenize` without the `QUERY_STOPWORDS`."""
    return [t for t in tokenize(text) if t not in QUERY_STOPWORDS]


def chunk_keys(text: str) -> list[str]:
    """A chunk's name keys (one per Arabic word): terms beside its `tokenize` words."""
    return page_keys(text)


def question_keys(text: str) -> list[str]:
    """A query's name keys: its capitalised Latin words that are not stopwords."""
    return query_keys(text, STOPWORDS)


def term_id(token: str) -> int:
    return zlib.crc32(token.encode("utf-8"))


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass
class Bm25Stats:
    """Corpus statistics over indexed chunks: document count, total length, document frequency."""

    documents: int = 0
    total_length: int = 0
    df: Counter[str] = field(default_factory=Counter)
    dirty: bool = field(default=False, compare=False)  # changed since loaded: needs saving

    @property
    def avgdl(self) -> float:
        return self.total_length / self.documents if self.documents else 1.0

    def add(self, tokens: list[str], keys: Sequence[str] = ()) -> None:
        self.dirty = True
        self.documents += 1
        self.total_length += len(tokens)
        self.df.update(set(tokens) | set(keys))

    def remove(self, tokens: list[str], keys: Sequence[str] = ()) -> None:
        self.dirty = True
        self.documents -= 1
        self.total_length -= len(tokens)
        terms = set(tokens) | set(keys)
        self.df.subtract(terms)
        for term in terms:
            if self.df[term] <= 0:
                del self.df[term]

    def idf(self, token: str) -> float:
        """Qdrant's IDF modifier, for computing exact scores outside the store."""
        n = self.df.get(token, 0)
        return math.log(1 + (self.documents - n + 0.5) / (n + 0.5))

    def save(self, path: Path) -> None:
        doc = {"documents": self.documents, "total_length": self.total_length, "df": dict(self.df)}
        write_atomic(path, json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
        self.dirty = False

    @classmethod
    def load(cls, path: Path) -> Bm25Stats:
        try:
            doc = json.loads(read_regular_file(path, MAX_FILE_BYTES))
            return cls(int(doc["documents"]), int(doc["total_length"]), Counter(doc["df"]))
        except (OSError, ValueError, KeyError, TypeError, InvalidInputError):
            return cls()


def document_vector(
    tokens: list[str], avgdl: float, k1: float, b: float, keys: Sequence[str] = ()
) -> SparseVector:
    """A chunk's BM25 term weights (without IDF, which the store applies); its
    length is its words alone."""
    counts = Counter([*tokens, *keys])
    norm = k1 * (1 - b + b * len(tokens) / avgdl)
    weights: dict[int, float] = {}
    for token, tf in counts.items():
        tid = term_id(token)
        weights[tid] = weights.get(tid, 0.0) + tf * (k1 + 1) / (tf + norm)
    return SparseVector(list(weights), list(weights.values()))


def query_vector(
    tokens: list[str], keys: Sequence[str] = (), stats: Bm25Stats | None = None
) -> SparseVector:
    """Each term's count in the query; times its IDF from `stats` when given (a
    store shared by many workspaces applies no IDF of its own: it would count
    every workspace's documents)."""
    weights: dict[int, float] = {}
    for term, count in Counter([*tokens, *keys]).items():
        tid = term_id(term)
        weight = float(count) * (stats.idf(term) if stats is not None else 1.0)
        weights[tid] = weights.get(tid, 0.0) + weight
    return SparseVector(list(weights), list(weights.values()))
