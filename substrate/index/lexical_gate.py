"""How much a query's words can be trusted to find its page.

BM25 ranks whatever shares a question's words. A question worded its own way
("How many are credited with it in 2015?") shares no word with its page, so
BM25's top pages are the ones that happen to share its other words, and
min-max fusion gives the first of them BM25's full weight however thin the
match. The gate reads the query's lexical evidence from what BM25 returned and
lets meaning lead where it is thin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from substrate.index.store import StoreHit


@dataclass(frozen=True)
class LexicalGate:
    """How much of BM25's weight a query's lexical evidence keeps: the weight is
    multiplied by 1 - depth * p, where p = sigmoid(bias + coverage * c + margin * m)
    is the chance that BM25 misleads. `c` is its best chunk's share of the query's
    ideal score, `m` how far its best page's score stands out from the next page's
    ((s1 - s2) / s1). A paraphrase matches a page by its stray words, thinly and
    with no page standing out; a question that names what its page says covers
    much of itself in one page, which leads. The coefficients are fitted on the
    development half of every set (`bench/fusion_fit.py --fit-gate`); depth 0 is
    off. Pages only: a conversation's windows all share its names and topics, so
    among them a flat BM25 list is how a named question looks, not a paraphrase;
    an episode search keeps BM25's full weight (measured: docs/search.md)."""

    depth: float = 0.0
    bias: float = 0.0
    coverage: float = 0.0
    margin: float = 0.0

    def keeps(self, coverage: float, margin: float) -> float:
        """The share of BM25's weight this query keeps, in [1 - depth, 1]."""
        if self.depth <= 0:
            return 1.0
        z = self.bias + self.coverage * coverage + self.margin * margin
        return 1.0 - self.depth / (1.0 + math.exp(-z))


# fitted on the even half of bench/retrieval.py's sets (see docs/search.md)
GATE_BIAS, GATE_COVERAGE, GATE_MARGIN = 0.99, -2.31, -2.91


def page_margin(pages: dict[str, StoreHit]) -> float:
    """How far a signal's best page stands out from its next, (s1 - s2) / s1 over
    the pages' best chunks in rank order, in [0, 1]: 1 for a lone page, 0 for
    no page or a top score of zero."""
    scores = [h.score for h in pages.values()][:2]
    if not scores or scores[0] <= 0:
        return 0.0
    if len(scores) == 1:
        return 1.0
    return min(1.0, max(0.0, (scores[0] - scores[1]) / scores[0]))
