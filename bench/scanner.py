"""The scanner, measured honestly.

    python bench/scanner.py            # everything (about 10 minutes on 2 cores)
    python bench/scanner.py --quick    # regression corpus, cost and timings only

1. The regression corpus written with the rules
   (`tests/substrate/safety/scanner_corpus/`): caught by the intended rule,
   false positives. It shows the rules still do what they were written for;
   it says nothing about payloads they were not written for.
2. The development set (`../shared/data/injection/`), under 5-fold
   cross-validation of the learned detector (the parameters the shipped
   weights were trained with): catch per category and per language under
   the user policy and the import (strict) policy, rules alone and with the
   detector, and how a person's write would meet it (refused on firm
   evidence, or held for review); false positives the same way on the benign
   half, its hard negatives and the report half of every everyday kind.
3. The benign corpus's report half (`bench/benign_corpus.py`, never trained
   or tuned on) through the shipped scanner: false positives per kind
   (technical notes, chat, e-mails, personal notes, Arabic) under both
   policies, and each flagged text with what it met.
4. Cost per text (p50 / p95 over the development set): rules alone, and
   rules with the detector (the USE embedding included), warm.
5. Adversarial inputs at 10, 100 and 1,000 KB: linear growth shows as a 10x
   step per column.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from scanner_data import (
    EVERYDAY,
    KINDS,
    DevSet,
    Params,
    benign_threshold,
    load_corpus_rows,
    load_dev_set,
    load_rows,
    out_of_fold,
)

from substrate.index.use_embedder import UseEmbedder
from substrate.safety import RULES, LearnedDetector, Scanner
from substrate.safety.scanner.classifier import MODEL_PATH

CORPUS = (
    Path(__file__).resolve().parent.parent / "tests" / "substrate" / "safety" / "scanner_corpus"
)
LANGS = ("en", "de", "ar", "zh", "es", "fr", "ru")


def regression_corpus(scanner: Scanner, label: str) -> None:
    attacks = yaml.safe_load((CORPUS / "attacks.yaml").read_text("utf-8"))
    benign = yaml.safe_load((CORPUS / "benign.yaml").read_text("utf-8"))
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for attack in attacks:
        total[attack["rule"]] += 1
        if attack["rule"] in {f.rule for f in scanner.findings(attack["text"])}:
            caught[attack["rule"]] += 1
    false = [note for note in benign if not scanner.check(note).ok]
    cells = ", ".join(f"{rule} {caught[rule]}/{total[rule]}" for rule in sorted(total))
    print(f"regression corpus, {label}: {cells}; false positives {len(false)}/{len(benign)}")
    for note in false:
        print(f"  false positive: {note[:80]!r}")


@dataclass(frozen=True)
class Policies:
    """Per text: flagged by the rules under each policy, and firm (refused from a
    person's own words) under the user policy."""

    user: np.ndarray
    strict: np.ndarray
    firm: np.ndarray

    @classmethod
    def of(cls, texts: list[str]) -> Policies:
        user = [RULES.check(t, "user") for t in texts]
        strict = [not RULES.check(t, "import").ok for t in texts]
        return cls(
            np.array([not v.ok for v in user]),
            np.array(strict),
            np.array([not v.ok and v.firm for v in user]),
        )


def cross_validated(dev: DevSet) -> None:
    trained = json.loads(MODEL_PATH.read_text())["trained"]
    params = Params(trained["l2"], trained["embedding_scale"], trained["steps"])
    rows = np.flatnonzero(dev.mask(extra="") | dev.mask(extra="train"))
    scores = out_of_fold(dev, params, rows)
    learned = np.zeros(len(dev.rows), dtype=bool)
    learned[rows] = scores[rows] > benign_threshold(dev, scores, rows)
    rules = Policies.of([r.text for r in dev.rows])
    user, strict = rules.user | learned, rules.strict | learned
    core = dev.mask(extra="")
    attack = core & (dev.y == 1)
    print(f"\ndevelopment set, {len(rows)} texts, learned detector by 5-fold CV (l2={params.l2:g})")
    print(
        f"{'caught':28s}{'n':>6s}{'learned':>9s}{'user rules':>12s}{'user':>7s}"
        f"{'import rules':>14s}{'import':>8s}{'refused':>9s}{'held':>7s}"
    )

    def line(name: str, mask: np.ndarray) -> None:
        n = int(mask.sum())
        if n:
            held = user & ~rules.firm
            print(
                f"{name:28s}{n:6d}{learned[mask].mean():9.3f}{rules.user[mask].mean():12.3f}"
                f"{user[mask].mean():7.3f}{rules.strict[mask].mean():14.3f}"
                f"{strict[mask].mean():8.3f}{rules.firm[mask].mean():9.3f}{held[mask].mean():7.3f}"
            )

    line("all attacks", attack)
    for category in sorted({r.category for r in dev.rows if r.attack}):
        line(f"  {category}", attack & dev.mask(category=category))
    line("  memory-poisoning style", attack & dev.mask(memory_style=True))
    for lang in LANGS:
        line(f"  lang {lang}", attack & dev.mask(lang=lang))
    line("  other languages", attack & ~np.isin([r.lang for r in dev.rows], LANGS))
    print("false positives (refused and held are shares of all benign texts, user policy)")
    benign = core & (dev.y == 0)
    line("benign", benign)
    line("  hard negatives", benign & dev.mask(hard=True))
    for name in EVERYDAY:  # the report halves: section 3, through the shipped weights
        line(f"  {name} (trained half, out of fold)", dev.mask(extra="train", source=name))


def benign_kinds(full: Scanner) -> None:
    """The shipped scanner on the report half of the benign corpus (never trained
    or tuned on): what each policy flags, and what a person's write would meet."""
    rows = [r for r in load_corpus_rows() if r.extra == "report"]
    print(f"\nbenign kinds, report half of bench/data/benign_corpus.jsonl.gz ({len(rows)} texts)")
    print(
        f"{'kind':12s}{'n':>6s}{'user rules':>12s}{'user':>7s}{'import rules':>14s}"
        f"{'import':>8s}{'refused':>9s}{'held':>7s}"
    )
    for kind in KINDS:
        texts = [r.text for r in rows if r.source == kind]
        rules = Policies.of(texts)
        user = [full.check(t, "user") for t in texts]
        strict = np.array([not full.check(t, "import").ok for t in texts])
        flagged = np.array([not v.ok for v in user])
        refused = np.array([v.action == "refuse" for v in user])
        held = np.array([v.action == "hold" for v in user])
        print(
            f"{kind:12s}{len(texts):6d}{rules.user.mean():12.3f}{flagged.mean():7.3f}"
            f"{rules.strict.mean():14.3f}{strict.mean():8.3f}{refused.mean():9.3f}{held.mean():7.3f}"
        )
        for text, verdict in zip(texts, user, strict=True):
            if not verdict.ok:
                print(f"    user {verdict.action}: {verdict.rule}: {text[:90]!r}")


def costs(scanner: Scanner, texts: list[str], label: str) -> None:
    for text in texts[:20]:
        scanner.check(text)  # warm: the model loaded, caches filled
    times = []
    for text in texts:
        started = time.perf_counter()
        scanner.check(text)
        times.append(time.perf_counter() - started)
    p95 = float(np.percentile(times, 95))
    print(
        f"cost per text, {label:24s} p50 {statistics.median(times) * 1000:6.2f} ms"
        f"   p95 {p95 * 1000:6.2f} ms   ({len(texts)} texts)"
    )


def adversarial_timings(sizes_kb: tuple[int, ...] = (10, 100, 1000)) -> None:
    cases = yaml.safe_load((CORPUS / "adversarial.yaml").read_text("utf-8"))
    print()
    print(f"{'adversarial input':26s}" + "".join(f"{kb:>9d} KB" for kb in sizes_kb) + "   1000/10")
    worst = 0.0
    for case in cases:
        unit = case["unit"]
        times = []
        for kb in sizes_kb:
            text = unit * (kb * 1024 // len(unit.encode("utf-8")) + 1)
            started = time.perf_counter()
            RULES.check(text)
            times.append(time.perf_counter() - started)
        ratio = times[-1] / max(times[0], 1e-9)
        worst = max(worst, times[-1])
        cells = "".join(f"{t * 1000:>9.1f} ms" for t in times)
        print(f"{case['name']:26s}{cells}   {ratio:7.0f}x")
    print(f"slowest 1,000 KB input: {worst * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the cross-validation")
    args = parser.parse_args()
    use = UseEmbedder()
    full = Scanner(LearnedDetector.load(use.embed_query))
    regression_corpus(RULES, "rules")
    regression_corpus(full, "rules + learned")
    if not args.quick:
        cross_validated(load_dev_set(use=use))
    benign_kinds(full)
    texts = [row.text for row in load_rows()]
    print()
    costs(RULES, texts, "rules alone")
    costs(full, texts, "rules + learned")
    adversarial_timings()


if __name__ == "__main__":
    main()
