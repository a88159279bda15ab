"""Fit the offline extractor's durability judge on the hand labels and write its
weights.

    python bench/capture_train.py            # choose, report, write the weights
    python bench/capture_train.py --dry-run  # the same figures, nothing written

The rules of `substrate/curation/statements.py` propose statements; the judge
(`substrate/curation/judge.py`) keeps those it reads as durable facts about the
speaker. It is logistic regression over the multilingual sentence embedding
the product ships (USE) beside hashed words, word pairs and character 4-grams,
the scanner's learned detector's features and weight format.

Data: the development labels only (`bench/data/capture_labels_dev.jsonl`,
statements the extractor proposed at some point, each labelled durable or
not); the reported sample (`capture_labels.jsonl`) is never read here.

Method (fixed seed, numpy only):
1. each candidate (L2 strength, USE block scale) is scored by 5-fold
   cross-validation, repeated, on the precision it reaches among the labelled
   statements the rules propose *today* while keeping `KEEP_POSITIVES` of
   their durable ones;
2. the winner is fitted on every development label;
3. its threshold is the strictest (from the out-of-fold score that keeps that
   share, in steps of `STEP`) at which the extractor still keeps
   `RECALL_FLOOR` of LongMemEval's evidence turns in the *even* half (the
   tuning half of `bench/capture.py`'s recall; the odd half is the report):
   evidence statements are the judge's clearest durable facts, so a stricter
   threshold buys precision there before it costs recall.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from capture import KEEP, lme, words
from scanner_data import Params, fit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from substrate.curation.judge import HASH_DIM, MODEL_PATH  # noqa: E402
from substrate.curation.statements import durable_statements  # noqa: E402
from substrate.index.use_embedder import UseEmbedder  # noqa: E402
from substrate.safety.scanner.classifier import DetectorWeights, hashed_features  # noqa: E402

LABELS = Path(__file__).parent / "data" / "capture_labels_dev.jsonl"
SEED = 20261203
FOLDS = 5
REPEATS = 3
KEEP_POSITIVES = 0.90
RECALL_FLOOR = 0.60
STEP = 0.05
DATA = ROOT.parent / "shared" / "data"
GRID = [Params(l2, scale, steps=400) for l2 in (1e-3, 3e-3, 1e-2) for scale in (1.0, 2.0)]


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def proposed_today(rows: list[dict[str, Any]]) -> np.ndarray:
    """Which labelled statements the rules still propose (the judge's real input)."""
    now: dict[str, set[str]] = {}
    for r in rows:
        if r["turn"] not in now:
            now[r["turn"]] = {s.text for s in durable_statements(r["turn"], judge=None)}
    return np.array([r["statement"] in now[r["turn"]] for r in rows])


def out_of_fold(x: np.ndarray, y: np.ndarray, params: Params) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    scores = np.zeros(len(y))
    for _ in range(REPEATS):
        for held in np.array_split(rng.permutation(len(y)), FOLDS):
            train = np.setdiff1d(np.arange(len(y)), held)
            w, b = fit(x[train], y[train], params)
            scores[held] += x[held] @ w + b
    return scores / REPEATS


def threshold_keeping(scores: np.ndarray, y: np.ndarray, share: float) -> float:
    positives = np.sort(scores[y == 1])
    return float(positives[int(np.floor((1 - share) * len(positives))) - 1])


def figures(scores: np.ndarray, y: np.ndarray, today: np.ndarray, t: float) -> dict[str, float]:
    kept = scores > t
    mine = today & kept
    return {
        "precision_today_rules": round(float(y[today].mean()), 3),
        "precision_today_judged": round(float(y[mine].mean()), 3),
        "positives_kept_today": round(float(kept[today & (y == 1)].mean()), 3),
        "negatives_dropped_today": round(float(1 - kept[today & (y == 0)].mean()), 3),
    }


def evidence_turns() -> list[tuple[set[str], list[tuple[str, bool]]]]:
    """The even half's evidence user turns: the answer words each says, and the
    statements the rules propose in it (with whether the judge reads each)."""
    out, seen = [], set()
    for i, q in enumerate(lme(DATA)):
        if i % 2:
            continue
        for session in q["haystack_sessions"]:
            for turn in session:
                key = (turn["content"], str(q["answer"]))
                if turn["role"] != "user" or not turn.get("has_answer") or key in seen:
                    continue
                seen.add(key)
                wanted = words(str(q["answer"])) & words(turn["content"])
                if wanted:
                    proposed = durable_statements(turn["content"], judge=None)
                    out.append((wanted, [(s.text, s.judged) for s in proposed]))
    return out


def recall_at(
    turns: list[tuple[set[str], list[tuple[str, bool]]]], scores: dict[str, float], threshold: float
) -> float:
    kept = 0
    for wanted, proposed in turns:
        found = set().union(
            *(words(text) for text, judged in proposed if not judged or scores[text] > threshold)
        )
        kept += len(wanted & found) >= KEEP * len(wanted)
    return kept / len(turns)


def strictest(weights: DetectorWeights, embed: Any, start: float) -> tuple[float, float]:
    """The strictest threshold from `start` keeping `RECALL_FLOOR` of the even
    half's evidence turns, and the recall there."""
    turns = evidence_turns()
    texts = {text for _, proposed in turns for text, judged in proposed if judged}
    scores = {t: weights.score(np.asarray(embed(t), dtype=np.float64), t) for t in texts}
    best = (start, recall_at(turns, scores, start))
    threshold = start + STEP
    while (got := recall_at(turns, scores, threshold)) >= RECALL_FLOOR:
        best = (threshold, got)
        threshold += STEP
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args()
    rows = load(LABELS)
    y = np.array([float(r["durable"]) for r in rows])
    today = proposed_today(rows)
    use = UseEmbedder()
    embedding = np.stack([use.embed_query(r["statement"]) for r in rows]).astype(np.float64)
    hashed = np.stack([hashed_features(r["statement"], HASH_DIM) for r in rows])
    print(f"# {len(rows)} labels, {int(y.sum())} durable; {int(today.sum())} proposed today")
    best: tuple[float, Params, np.ndarray] | None = None
    for params in GRID:
        x = np.hstack([embedding * params.embedding_scale, hashed])
        scores = out_of_fold(x, y, params)
        got = figures(scores, y, today, threshold_keeping(scores[today], y[today], KEEP_POSITIVES))
        print(f"l2={params.l2:g} use x{params.embedding_scale:g}: {got}")
        if best is None or got["precision_today_judged"] > best[0]:
            best = (got["precision_today_judged"], params, scores)
    assert best is not None
    _, params, scores = best
    start = threshold_keeping(scores[today], y[today], KEEP_POSITIVES)
    x = np.hstack([embedding * params.embedding_scale, hashed])
    w, b = fit(x, y, params)
    dim = embedding.shape[1]
    weights = DetectorWeights(
        embedding=w[:dim] * params.embedding_scale,
        hashed=w[dim:],
        bias=b,
        threshold=start,
        embedder=use.identity,
        trained={},
    )
    threshold, recall = strictest(weights, use.embed_query, start)
    record = {
        "labels": len(rows),
        "seed": SEED,
        "l2": params.l2,
        "use_scale": params.embedding_scale,
        "keep_positives": KEEP_POSITIVES,
        "cross_validated_at_keep_positives": figures(scores, y, today, start),
        "threshold_raised_by": round(threshold - start, 3),
        "even_half_evidence_recall": round(recall, 3),
        "cross_validated_at_threshold": figures(scores, y, today, threshold),
    }
    print(json.dumps(record, indent=1))
    weights = replace(weights, threshold=threshold, trained=record)
    if not args.dry_run:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(weights.to_json(), indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
