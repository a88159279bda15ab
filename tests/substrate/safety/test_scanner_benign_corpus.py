"""The rules on the benign development corpus (`bench/benign_corpus.py`): text
that looks like users' passes both policies, kind by kind. The corpus's
report half was never looked at while the rules were written; a rule change
that starts flagging command notes, e-mails or personal notes fails here."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from substrate.safety import RULES

CORPUS = Path(__file__).resolve().parents[3] / "bench" / "data" / "benign_corpus.jsonl.gz"
KINDS = ("technical", "chat", "email", "personal", "arabic")


def rows() -> list[dict[str, str]]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_the_corpus_holds_every_kind_in_both_halves() -> None:
    counts = Counter((r["kind"], r["part"]) for r in rows())
    for kind in KINDS:
        assert counts[kind, "train"] >= 60 and counts[kind, "report"] >= 60, kind


@pytest.mark.parametrize("source", ["user", "import"])
def test_the_rules_flag_at_most_one_percent_of_every_benign_kind(source: str) -> None:
    flagged: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row in rows():
        total[row["kind"]] += 1
        if not RULES.check(row["text"], source).ok:
            flagged[row["kind"]] += 1
    rates = {kind: flagged[kind] / total[kind] for kind in KINDS}
    assert all(rate <= 0.01 for rate in rates.values()), rates
