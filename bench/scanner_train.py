"""Fit the scanner's learned detector on the development set and write its weights.

    python bench/scanner_train.py            # choose, report, and write model/detector.json
    python bench/scanner_train.py --dry-run  # the same figures, nothing written

Data: the injection development set, plus everyday benign text from the
other shared sets (chat turns, encyclopedic paragraphs; see
`scanner_data.load_everyday_rows`), half kept out for reporting.

Method (fixed seed, numpy only, reproducible on one machine):
1. the development set is split in halves, stratified: a *tuning* half and a
   *report* half;
2. each candidate (L2 strength, USE block scale) is scored on the tuning
   half (with the everyday training texts) by 5-fold cross-validation: its
   threshold is set on the out-of-fold scores for at most 1% false positives
   (benign rows, hard negatives and everyday texts alike), and it is judged
   by the share of attacks the rules and it catch together;
3. the winner, fitted on the tuning half with that threshold, is reported on
   the report half it never saw, and on the held-out everyday texts;
4. the winner is cross-validated over the whole set (5 folds): the
   out-of-fold scores give the shipped threshold;
5. it is fitted on everything it may train on and written with that threshold.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from scanner_data import (
    EVERYDAY,
    FOLDS,
    HASH_DIM,
    SEED,
    TARGET_FP,
    DevSet,
    Floats,
    Index,
    Params,
    benign_threshold,
    features,
    fit,
    folds_of,
    load_dev_set,
    out_of_fold,
)

from substrate.index.use_embedder import UseEmbedder
from substrate.safety.scanner.classifier import MODEL_PATH, DetectorWeights

GRID = [Params(l2, 2.0) for l2 in (1e-5, 1e-6)]


def rates(dev: DevSet, flagged: np.ndarray, rows: Index) -> dict[str, float]:
    """Catch and false-positive rates of rules | detector over the dev rows in `rows`."""
    y = dev.y
    rows = rows[dev.mask(extra="")[rows]]
    attacks = rows[y[rows] == 1]
    benign = rows[y[rows] == 0]
    hard = benign[dev.mask(hard=True)[benign]]
    both = flagged | dev.rules
    return {
        "learned": float(flagged[attacks].mean()),
        "rules": float(dev.rules[attacks].mean()),
        "both": float(both[attacks].mean()),
        "fp": float(both[benign].mean()),
        "hard_fp": float(both[hard].mean()) if len(hard) else 0.0,
    }


def everyday_fp(dev: DevSet, flagged: np.ndarray, part: str) -> dict[str, float]:
    both = flagged | dev.rules
    return {name: float(both[dev.mask(extra=part, source=name)].mean()) for name in EVERYDAY}


def show(label: str, r: dict[str, float]) -> None:
    print(
        f"{label:38s} rules {r['rules']:.3f}  learned {r['learned']:.3f}  both {r['both']:.3f}"
        f"  FP {r['fp']:.3f}  hard FP {r['hard_fp']:.3f}"
    )


def choose(dev: DevSet, tune: Index) -> Params:
    best: tuple[float, Params] | None = None
    for params in GRID:
        scores = out_of_fold(dev, params, tune)
        r = rates(dev, scores > benign_threshold(dev, scores, tune), tune)
        show(f"tune  l2={params.l2:g} use x{params.embedding_scale:g}", r)
        if best is None or r["both"] > best[0]:
            best = (r["both"], params)
    assert best is not None
    return best[1]


def weights(
    w: Floats, b: float, threshold: float, params: Params, record: dict[str, Any]
) -> DetectorWeights:
    dim = w.shape[0] - HASH_DIM
    return DetectorWeights(
        embedding=w[:dim] * params.embedding_scale,  # the scale folded into the weights
        hashed=w[dim:],
        bias=b,
        threshold=threshold,
        embedder=UseEmbedder().identity,
        trained=record,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args()
    dev = load_dev_set()
    y = dev.y
    core = dev.where(extra="")
    everyday = dev.where(extra="train")
    half_a, half_b = folds_of(core, y, k=2, seed=SEED + 1)
    tune = np.sort(np.concatenate([half_a, everyday]))
    params = choose(dev, tune)
    print(f"# chosen: l2={params.l2:g}, USE block x{params.embedding_scale:g}")

    threshold = benign_threshold(dev, out_of_fold(dev, params, tune), tune)
    x = features(dev, params)
    w, b = fit(x[tune], y[tune], params)
    flagged = dev.readable & ((x @ w + b) > threshold)
    held_rates = rates(dev, flagged, half_b)
    show("report half (never tuned on)", held_rates)

    trainable = np.sort(np.concatenate([core, everyday]))
    scores = out_of_fold(dev, params, trainable)
    threshold = benign_threshold(dev, scores, trainable)
    cv = rates(dev, scores > threshold, trainable)
    show(f"{FOLDS}-fold CV, whole set", cv)

    w, b = fit(x[trainable], y[trainable], params)
    final = dev.readable & ((x @ w + b) > threshold)
    held_out = everyday_fp(dev, final, "report")
    print(
        "everyday texts never trained on, FP: "
        + ", ".join(f"{k} {v:.3f}" for k, v in held_out.items())
    )
    record = {
        "seed": SEED,
        "folds": FOLDS,
        "target_fp": TARGET_FP,
        "l2": params.l2,
        "embedding_scale": params.embedding_scale,
        "steps": params.steps,
        "texts": len(trainable),
        "attacks": int(y[trainable].sum()),
        "report_half": {k: round(v, 4) for k, v in held_rates.items()},
        "cross_validated": {k: round(v, 4) for k, v in cv.items()},
        "everyday_fp_held_out": {k: round(v, 4) for k, v in held_out.items()},
    }
    if args.dry_run:
        return
    model = weights(w, b, threshold, params, record)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"# wrote {args.out} ({args.out.stat().st_size // 1024} KB), threshold {threshold:.4f}")


if __name__ == "__main__":
    main()
