"""The scanner's development set and the logistic regression fitted on it,
shared by `bench/scanner_train.py` (which writes the weights) and
`bench/scanner.py` (which reports under cross-validation).

The set is `../shared/data/injection/` (attacks and benign notes from public
sources; its README gives provenance). Everything here is deterministic: a
fixed seed splits the folds, training starts from zero weights and runs a
fixed number of full-batch Adam steps.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import yaml

from substrate.index.use_embedder import UseEmbedder
from substrate.safety.scanner import RULES
from substrate.safety.scanner.classifier import MAX_CHARS, hashed_features, readable

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DATA = SHARED / "injection"
SEED = 20261201
FOLDS = 5
HASH_DIM = 16384
TARGET_FP = 0.01  # the threshold lets at most this share of benign texts through as attacks
Floats = npt.NDArray[np.float64]


Index = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Row:
    text: str
    attack: bool
    category: str  # "benign" for benign rows
    lang: str
    source: str
    hard: bool
    memory_style: bool
    extra: str = ""  # "train" / "report": everyday text from the other data sets (below)


@dataclass(frozen=True)
class DevSet:
    rows: list[Row]
    embedding: Floats  # USE vectors, one row per text
    hashed: Floats  # hashed lexical features
    rules: npt.NDArray[np.bool_]  # the rules (user policy) reject it
    readable: npt.NDArray[np.bool_]  # long enough for the detector to judge (else it abstains)

    @property
    def y(self) -> Floats:
        return np.array([1.0 if r.attack else 0.0 for r in self.rows])

    def mask(self, **want: object) -> npt.NDArray[np.bool_]:
        return np.array([all(getattr(r, k) == v for k, v in want.items()) for r in self.rows])

    def where(self, **want: object) -> Index:
        return np.flatnonzero(self.mask(**want))


def load_rows(data: Path = DATA) -> list[Row]:
    if not (data / "attacks.jsonl").exists():
        raise SystemExit(f"the development set is missing: {data}/attacks.jsonl")
    rows = []
    for name, attack in (("attacks.jsonl", True), ("benign.jsonl", False)):
        for line in (data / name).read_text("utf-8").splitlines():
            doc = json.loads(line)
            rows.append(
                Row(
                    doc["text"],
                    attack,
                    doc.get("category", "benign") if attack else "benign",
                    doc.get("lang", "?"),
                    str(doc.get("source", "")).split(":")[0],
                    bool(doc.get("hard", False)),
                    bool(doc.get("memory_style", False)),
                )
            )
    return rows


# Benign text that looks like users' (`bench/benign_corpus.py`): technical notes,
# chat turns, e-mails, personal notes and Arabic, each row dealt to "train" or
# "report" by its document. The dev set's benign half is questions and
# instructions; trained on it alone, the detector flagged 7% of command notes
# ("rm -f: ignore nonexistent files, never prompt") and 8% of transactional
# e-mails ("If this was you, you can ignore this message").
CORPUS = Path(__file__).resolve().parent / "data" / "benign_corpus.jsonl.gz"
KINDS = ("technical", "chat", "email", "personal", "arabic")
# Encyclopedic paragraphs (XQuAD, English and Arabic) and the benign notes of the
# scanner's regression corpus (hashes, keys, preferences), dealt by position.
EXTRA_PER_SET = 700
EVERYDAY = (*KINDS, "xquad", "regression")


def load_corpus_rows(path: Path = CORPUS) -> list[Row]:
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    return [
        Row(d["text"], False, "benign", "ar" if d["kind"] == "arabic" else "?", d["kind"],
            False, False, d["part"])
        for d in docs
    ]  # fmt: skip


def load_everyday_rows(shared: Path = SHARED) -> list[Row]:
    import random

    rng = random.Random(SEED)
    sets: dict[str, list[tuple[str, str]]] = {}
    sets["xquad"] = [
        (p["context"], "train" if i % 2 == 0 else "report")
        for lang in ("en", "ar")
        for i, article in enumerate(
            json.loads((shared / "xquad" / f"xquad.{lang}.json").read_text("utf-8"))["data"]
        )
        for p in article["paragraphs"]
    ]
    corpus = Path(__file__).resolve().parent.parent / "tests/substrate/safety/scanner_corpus"
    notes = yaml.safe_load((corpus / "benign.yaml").read_text("utf-8"))
    sets["regression"] = [(t, "train" if i % 2 == 0 else "report") for i, t in enumerate(notes)]
    rows = []
    for name, texts in sets.items():
        for part in ("train", "report"):
            chosen = [t for t, p in texts if p == part]
            for text in rng.sample(chosen, min(EXTRA_PER_SET // 2, len(chosen))):
                rows.append(Row(text, False, "benign", "?", name, False, False, part))
    return rows + load_corpus_rows()


def load_dev_set(data: Path = DATA, use: UseEmbedder | None = None) -> DevSet:
    rows = load_rows(data) + load_everyday_rows(data.parent)
    model = use or UseEmbedder()
    started = time.perf_counter()
    embedding = np.stack([model.embed_query(r.text[:MAX_CHARS]) for r in rows]).astype(np.float64)
    hashed = np.stack([hashed_features(r.text, HASH_DIM) for r in rows])
    rules = np.array([not RULES.check(r.text, "user").ok for r in rows])
    judged = np.array([readable(r.text) for r in rows])
    print(f"# {len(rows)} texts embedded and hashed in {time.perf_counter() - started:.1f} s")
    return DevSet(rows, embedding, hashed, rules, judged)


@dataclass(frozen=True)
class Params:
    l2: float
    embedding_scale: float  # the USE block's scale beside the unit-length hashed block
    steps: int = 600
    rate: float = 0.05


def features(dev: DevSet, params: Params) -> Floats:
    return np.hstack([dev.embedding * params.embedding_scale, dev.hashed])


def fit(x: Floats, y: Floats, params: Params) -> tuple[Floats, float]:
    """Class-weighted logistic regression by full-batch Adam from zero weights."""
    w = np.zeros(x.shape[1])
    b = 0.0
    m_w, v_w = np.zeros_like(w), np.zeros_like(w)
    m_b = v_b = 0.0
    positive = max(1.0, float(y.sum()))
    weight = np.where(y == 1, (len(y) - positive) / positive, 1.0)
    weight /= weight.mean()
    for t in range(1, params.steps + 1):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        g = (p - y) * weight
        g_w = x.T @ g / len(y) + params.l2 * w
        g_b = float(g.mean())
        m_w = 0.9 * m_w + 0.1 * g_w
        v_w = 0.999 * v_w + 0.001 * g_w * g_w
        m_b = 0.9 * m_b + 0.1 * g_b
        v_b = 0.999 * v_b + 0.001 * g_b * g_b
        w -= params.rate * (m_w / (1 - 0.9**t)) / (np.sqrt(v_w / (1 - 0.999**t)) + 1e-8)
        b -= params.rate * (m_b / (1 - 0.9**t)) / (np.sqrt(v_b / (1 - 0.999**t)) + 1e-8)
    return w, b


def folds_of(indices: Index, y: Floats, k: int = FOLDS, seed: int = SEED) -> list[Index]:
    """Stratified folds: attacks and benign rows are dealt out separately."""
    rng = np.random.default_rng(seed)
    parts = [np.array_split(rng.permutation(indices[y[indices] == c]), k) for c in (1.0, 0.0)]
    return [np.sort(np.concatenate([a, b])) for a, b in zip(*parts, strict=True)]


def out_of_fold(dev: DevSet, params: Params, rows: Index) -> Floats:
    """Each row's score from the model trained on the other folds (NaN outside `rows`)."""
    x, y = features(dev, params), dev.y
    scores = np.full(len(dev.rows), np.nan)
    for held in folds_of(rows, y):
        train = np.setdiff1d(rows, held)
        w, b = fit(x[train], y[train], params)
        scores[held] = x[held] @ w + b
    return np.where(dev.readable, scores, -np.inf)  # the detector abstains on these


def threshold_for(groups: list[Floats], target: float = TARGET_FP) -> float:
    """The lowest threshold that flags at most `target` of each group's benign scores."""

    def cut(scores: Floats) -> float:
        ordered = np.sort(scores)
        allowed = int(np.floor(target * len(ordered)))
        return float(ordered[len(ordered) - allowed - 1])

    return max(cut(g) for g in groups if len(g))


def benign_threshold(dev: DevSet, scores: Floats, rows: Index) -> float:
    """At most 1% false positives on the benign dev rows, on the hard negatives
    among them, and on each kind of everyday text trained on (technical notes,
    chat, e-mails, personal notes, Arabic, encyclopedic paragraphs) apart: a
    kind the detector misreads is not averaged away by the others."""
    benign = rows[dev.y[rows] == 0]
    groups = [
        benign[dev.mask(extra="")[benign]],
        benign[dev.mask(extra="", hard=True)[benign]],
    ]
    groups += [benign[dev.mask(extra="train", source=k)[benign]] for k in EVERYDAY]
    return threshold_for([scores[g] for g in groups])
