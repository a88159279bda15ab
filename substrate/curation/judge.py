"""The durability judge: of the statements the rules propose, which are lasting
facts about the speaker.

The rules (`statements`) find first-person statements with a durable cue; they
cannot tell "I went to a concert with my sister last week" from "I went to the
store again and had issues with the self-checkout". The judge reads the whole
statement: logistic regression over the multilingual sentence embedding the
product already ships (USE) beside hashed words, word pairs and character
4-grams, in the scanner's learned detector's weight format. It is fitted by
`bench/capture_train.py` on hand-labelled statements (English) with a fixed
seed; its threshold is the strictest that still keeps 60% of LongMemEval's
evidence turns in the tuning half. This module only scores:
the embedding function comes from the composition root (`Settings.embed`), so
the curation room loads no model, and a caller without one gets the rules
alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from substrate.safety import DeferredDetector

MODEL_PATH = Path(__file__).parent / "model" / "durable.json"
HASH_DIM = 4096

Embed = Callable[[str], Any]


class DurabilityJudge:
    """Reads its weights on the first statement it judges (a process that never
    captures never loads them); a damaged install is reported then. Unlike the
    scanner's `flags`, every statement is judged: the rules only propose ones of
    four words or more."""

    def __init__(self, embed: Embed, path: Path = MODEL_PATH) -> None:
        self._weights = DeferredDetector(embed, path, "the durability judge")

    def score(self, text: str) -> float:
        return self._weights.score(text)

    def __call__(self, text: str) -> bool:
        """Whether the statement is kept: a durable fact about the speaker."""
        return self._weights.score(text) > self._weights.threshold
