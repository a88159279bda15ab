"""Fusion settings scored offline on every set's store queries at once.

    python bench/retrieval.py ../shared/data --half even --dump DIR
    python bench/fusion_fit.py DIR [--half even] [--variant NAME=key=value,...]
    python bench/fusion_fit.py DIR --half even --fit-gate

`bench/retrieval.py --dump` writes each question's store query (every
signal's chunks and scores, BM25's coverage, the relevant pages) for every
set; this fuses them again with other `Fusion` settings without embedding
anything, so a sweep over the whole of a half takes seconds. A variant names
`Fusion` fields: `dense`, `dense_ml`, `sparse` (weights), `min_coverage`,
`anchor_floor`, each dense signal's span guard (`min_span_dense`,
`min_span_dense_ml`), and the lexical gate's `gate` (depth), `gate_bias`,
`gate_coverage`, `gate_margin`. Printed: recall@5 and MRR per set and kind
(the `rewritten` and `unshared` strata among them), each signal alone, and
the share of questions below the best signal, beside the default.

`--fit-gate` fits the lexical gate (`substrate.index.fusion.LexicalGate`) on
the half's questions: a logistic regression of "fused without BM25 finds more
of the relevant pages in the top 5 than with BM25 at its full weight" on
BM25's coverage and its best page's margin, over the questions where the two
differ in `bench/retrieval.py`'s LoCoMo, notes and XQuAD (LongMemEval's pages
BM25 and meaning find alike; the consolidated turns of `bench/consolidation.py
--store-queries` are kept for checking, not fitting). It prints the
coefficients that `GATE_BIAS`, `GATE_COVERAGE` and `GATE_MARGIN` hold.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import statistics
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from retrieval import recall_mrr

from substrate import parse_config
from substrate.config.tuning import resolve_substrate_tuning
from substrate.index import DENSE, DENSE_ML, SPARSE, Fusion, configured_fusion, fuse
from substrate.index.fusion import lexical_margin
from substrate.index.lexical_gate import LexicalGate
from substrate.index.store import StoreHit

DEFAULT = configured_fusion(resolve_substrate_tuning(parse_config("")), multilingual=True)
WEIGHTS = {"dense": DENSE, "dense_ml": DENSE_ML, "sparse": SPARSE}
FIT_SETS = ("locomo", "notes", "xquad")  # the sets the shipped gate was fitted on
GATE = {"gate": "depth", "gate_bias": "bias", "gate_coverage": "coverage", "gate_margin": "margin"}
SPANS = {"min_span_dense": DENSE, "min_span_dense_ml": DENSE_ML}


def load(folder: Path, half: str) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for path in sorted(folder.glob(f"*-{half}.json.gz")):
        with gzip.open(path, "rt") as f:
            out[path.name.split("-")[0]] = json.load(f)
    return out


def signals_of(row: dict[str, Any]) -> dict[str, list[StoreHit]]:
    return {
        name: [
            StoreHit(score, {"slug": slug, "kind": kind, "chunk": chunk, "text": ""})
            for score, slug, kind, chunk in hits
        ]
        for name, hits in row["signals"].items()
    }


def variant(spec: str, base: Fusion) -> tuple[str, Fusion]:
    name, _, fields = spec.partition("=")
    fusion = base
    for item in filter(None, fields.split(",")):
        key, _, value = item.partition("=")
        if key in WEIGHTS:
            fusion = replace(fusion, weights={**fusion.weights, WEIGHTS[key]: float(value)})
        elif key in GATE:
            fusion = replace(fusion, gate=replace(fusion.gate, **{GATE[key]: float(value)}))
        elif key in SPANS:
            fusion = replace(fusion, min_span={**fusion.min_span, SPANS[key]: float(value)})
        else:
            fusion = replace(fusion, **{key: float(value)})
    return name, fusion


def ranked(row: dict[str, Any], fusion: Fusion) -> list[str]:
    signals = signals_of(row)
    weights = {k: v for k, v in fusion.weights.items() if k in signals}
    hits = fuse(signals, replace(fusion, weights=weights), row["coverage"], limit=50)
    return [h.slug for h in hits]


def report(sets: dict[str, list[dict[str, Any]]], fusions: dict[str, Fusion]) -> dict[str, Any]:
    alone = {n: replace(DEFAULT, weights={s: 1.0}) for n, s in WEIGHTS.items()}
    out: dict[str, Any] = {}
    for set_name, rows in sets.items():
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for row in rows:
            rel = set(row["relevant"])
            line: dict[str, float] = {}
            best = 0.0
            for name, fusion in alone.items():
                if fusion.weights.keys() <= row["signals"].keys():
                    line[name] = recall_mrr(ranked(row, fusion), rel)[0]
                    best = max(best, line[name])
            for name, fusion in fusions.items():
                line[name], line[f"{name}:mrr"] = recall_mrr(ranked(row, fusion), rel)
                line[f"{name}:below"] = float(line[name] < best)
            kind = row["kind"]
            groups[kind].append(line)
            if kind not in ("rewritten", "unshared"):
                groups["all"].append(line)
        out[set_name] = {
            g: {k: round(statistics.fmean(r[k] for r in rs if k in r), 3) for k in rs[0]}
            | {"n": len(rs)}
            for g, rs in sorted(groups.items())
        }
    return out


def fit_gate(sets: dict[str, list[dict[str, Any]]], steps: int = 20_000) -> LexicalGate:
    """The gate's coefficients fitted on `sets` (module doc), at the default's depth."""
    full = replace(DEFAULT, gate=LexicalGate())
    bare = replace(full, weights={**full.weights, SPARSE: 0.0})
    rows: list[tuple[float, float, float]] = []
    for set_name, questions in sets.items():
        if set_name not in FIT_SETS:
            continue
        for row in questions:
            rel = set(row["relevant"])
            with_bm25, without = (recall_mrr(ranked(row, f), rel)[0] for f in (full, bare))
            if with_bm25 != without:
                margin = lexical_margin(signals_of(row).get(SPARSE, []))
                rows.append((row["coverage"], margin, float(without > with_bm25)))
    w = [0.0, 0.0, 0.0]  # bias, coverage, margin: plain gradient descent on the log loss
    for _ in range(steps):
        grad = [0.0, 0.0, 0.0]
        for cov, margin, label in rows:
            err = 1.0 / (1.0 + math.exp(-(w[0] + w[1] * cov + w[2] * margin))) - label
            grad = [grad[0] + err, grad[1] + err * cov, grad[2] + err * margin]
        w = [wi - gi / len(rows) for wi, gi in zip(w, grad, strict=True)]
    print(f"fitted on {len(rows)} questions, {sum(r[2] for r in rows):.0f} better without BM25")
    return LexicalGate(DEFAULT.gate.depth, *(round(x, 2) for x in w))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--half", default="even")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--fit-gate", action="store_true", help="fit the lexical gate and stop")
    args = parser.parse_args()
    if args.fit_gate:
        print(fit_gate(load(args.dump, args.half)))
        return
    fusions = {"default": DEFAULT} | dict(variant(v, DEFAULT) for v in args.variant)
    result = report(load(args.dump, args.half), fusions)
    for set_name, groups in result.items():
        for group, figures in groups.items():
            cells = " ".join(
                f"{name}={figures[name]:.3f}/{figures[name + ':below']:.2f}" for name in fusions
            )
            solo = " ".join(f"{n}={figures.get(n, float('nan')):.3f}" for n in WEIGHTS)
            print(f"{set_name:12} {group:26} n={figures['n']:4} {cells} | {solo}")


if __name__ == "__main__":
    main()
