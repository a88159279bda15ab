"""The scanner stays linear on inputs built to make a backtracking engine explode.

Run in a subprocess with a generous limit: a regression to a backtracking
pattern (2,000 blank lines took 48 s under the old role-marker pattern; these
inputs are 100 KB) would hang, not merely slow, an in-process test. The
timings themselves are measured by `bench/scanner.py`, not asserted here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

CASES = yaml.safe_load((Path(__file__).parent / "scanner_corpus" / "adversarial.yaml").read_text())
SIZE = 100 * 1024
LIMIT_S = 120.0

SCRIPT = """
import sys, yaml
from substrate.safety import RULES
cases = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
size = int(sys.argv[2])
for case in cases:
    unit = case["unit"]
    text = unit * (size // len(unit.encode("utf-8")) + 1)
    RULES.findings(text)
    print(case["name"], flush=True)
"""


def test_every_adversarial_input_of_100_kb_is_scanned() -> None:
    corpus = Path(__file__).parent / "scanner_corpus" / "adversarial.yaml"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(corpus), str(SIZE)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=True,
    )
    assert done.stdout.split("\n")[:-1] == [case["name"] for case in CASES]


def test_the_corpus_covers_the_reported_freezes() -> None:
    units = {case["unit"] for case in CASES}
    assert {"\n", " ", "<think "} <= units
