"""Scanner catch rate and false-positive rate over the test corpus.

    python bench/scanner.py

Prints, per rule, how many attacks were caught by their intended rule, and
how many benign notes were wrongly rejected; then the time to scan each
adversarial input (`scanner_corpus/adversarial.yaml`) at 10, 100 and 1,000 KB,
so linear growth shows as a 10x step per column.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import yaml

from substrate import find_problems

CORPUS = (
    Path(__file__).resolve().parent.parent / "tests" / "substrate" / "safety" / "scanner_corpus"
)


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
    adversarial_timings()


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
            find_problems(text)
            times.append(time.perf_counter() - started)
        ratio = times[-1] / max(times[0], 1e-9)
        worst = max(worst, times[-1])
        cells = "".join(f"{t * 1000:>9.1f} ms" for t in times)
        print(f"{case['name']:26s}{cells}   {ratio:7.0f}x")
    print(f"slowest 1,000 KB input: {worst * 1000:.0f} ms")


if __name__ == "__main__":
    main()
