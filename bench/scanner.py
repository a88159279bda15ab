"""Scanner catch rate and false-positive rate over the test corpus.

    python bench/scanner.py

Prints, per rule, how many attacks were caught by their intended rule, and
how many benign notes were wrongly rejected.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import yaml

from substrate import find_problems

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "substrate" / "safety" / "scanner_corpus"


def main() -> None:
    attacks = yaml.safe_load((CORPUS / "attacks.yaml").read_text("utf-8"))
    benign = yaml.safe_load((CORPUS / "benign.yaml").read_text("utf-8"))
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter()
    started = time.perf_counter()
    for attack in attacks:
        total[attack["rule"]] += 1
        found = find_problems(attack["text"])
        if found and found[0].rule == attack["rule"]:
            caught[attack["rule"]] += 1
    false_positives = [note for note in benign if find_problems(note)]
    elapsed = time.perf_counter() - started
    for rule in sorted(total):
        print(f"{rule:22s} caught {caught[rule]}/{total[rule]}")
    n_caught, n_attacks = sum(caught.values()), sum(total.values())
    print(f"catch rate           {n_caught}/{n_attacks} = {n_caught / n_attacks:.1%}")
    print(
        f"false-positive rate  {len(false_positives)}/{len(benign)} = {len(false_positives) / len(benign):.1%}"
    )
    print(f"scan time            {elapsed / (len(attacks) + len(benign)) * 1e6:.0f} us per text")
    for note in false_positives:
        print(f"  false positive: {note[:80]!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
