"""Fit the family head on the development half and write its weights.

    python bench/meaning_train.py ../shared/data            # fit, report, write
    python bench/meaning_train.py ../shared/data --dry-run  # the same figures, nothing written

The head (`substrate/meaning/typing.py`) types the slot family of a statement
the rules could not read: home, work, the morning drink, diet, or none. Its
input is what the product gives it: the statement's own words in its
subject's first person (`meaning.read_text`), embedded by the multilingual
USE the product ships, beside the cosine to each family's prototype.

Data (`bench/wordings_data.py` and `../shared/data`):
- a family's value statements and everyday changes, as that family (a
  relative's home is a home); its topical sentences and its cessations, as
  none;
- LoCoMo's statements (as the offline extractor captures them) and
  LongMemEval's user sentences that the rules read no slot in and that name
  no family word, as none.
Templates alternate between the halves; LoCoMo by conversation and
LongMemEval by question. Only the development half is fitted on.

Method (fixed seed, numpy only): multinomial logistic regression, classes
weighted to balance, L2 chosen from a grid by 5-fold cross-validation on the
development half (macro F1 of the families); the threshold is the lowest
probability at which the out-of-fold head types at most `NONE_TYPED` of the
development half's none statements. Reported on the held-out half: each
family's recall and the share of none statements typed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
from wordings_data import FAMILIES, half_of

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from substrate.index.use_embedder import shared_use  # noqa: E402
from substrate.meaning import read_text  # noqa: E402
from substrate.meaning.sentences import sentence_pieces  # noqa: E402
from substrate.meaning.typing import MODEL_PATH, NONE, SLOTS, features, probabilities  # noqa: E402

SEED = 20261205
FOLDS = 5
NONE_TYPED = 0.005
GRID = (1e-4, 1e-3, 1e-2)
STEPS = 600
RATE = 0.5
# Family words: an outside statement holding one may state a family; it is left
# out rather than labelled none.
CUES = re.compile(
    r"\b(live|living|lived|moved|move|moving|flat|apartment|house|home|place|job|work|working|"
    r"worked|employer|company|hired|joined|started|office|coffee|tea|drink|drinking|"
    r"vegan|vegetarian|diet|meat|city|town|neighbo)",
    re.I,
)
FAMILY_OF = {"home": "home", "work": "work", "drink": "drink", "diet": "diet", "relation": "home"}
Example = tuple[str, str, str, str]  # text, label, half, source


def template_examples() -> list[Example]:
    out: list[Example] = []
    for family in FAMILIES:
        label = FAMILY_OF.get(family.name)
        for kind, templates in (
            ("first", family.first),
            ("change", family.change),
            ("ended", family.ended),
            ("topical", family.topical),
        ):
            for n, template in enumerate(templates):
                half = half_of(n)
                for old, new in family.values:
                    text = template.format(v=old, w=new)
                    if kind in ("ended", "topical"):
                        out.append((text, NONE, half, f"{family.lang}:{kind}"))
                    elif label is not None:
                        out.append((text, label, half, f"{family.lang}:{kind}"))
                    if kind == "topical":
                        break  # a topical sentence holds no value: once is enough
    return out


# Combinations for the development half only: more ways of saying a family's
# value than templates list, so the head learns the family, not the template.
COMBINED = {
    "home": (
        ["We", "I", "My partner and I", "We've", "I've"],
        [
            "finally got the keys to",
            "moved into",
            "settled into",
            "just bought",
            "are renting",
            "signed the lease on",
            "are now living in",
            "found",
        ],
        [
            "our new flat",
            "a house",
            "a new place",
            "a little cottage",
            "an apartment",
            "our first home",
        ],
        ["in Morningside", "in Portobello", "near the harbour", "on Elm Street", "across town", ""],
    ),
    "work": (
        ["I", "I've", "I just", "Finally I"],
        [
            "started my new job at",
            "began working at",
            "landed a role at",
            "got hired by",
            "accepted an offer from",
            "signed a contract with",
            "had my first day at",
            "moved over to",
        ],
        ["Skyscanner", "the Western General", "a small agency", "FanDuel", "the council", "Monzo"],
        ["as a designer", "as head of data", "in the sales team", "", "last week", "on Monday"],
    ),
    "drink": (
        ["I", "These days I", "Lately I", "Every morning I"],
        ["have", "drink", "make myself", "start the day with", "grab"],
        ["a flat white", "green tea", "black coffee", "a matcha latte", "rooibos", "an espresso"],
        ["in the mornings", "every morning", "before work", "now", "at breakfast", ""],
    ),
}


def combined_examples() -> list[Example]:
    import itertools

    out: list[Example] = []
    for family, parts in COMBINED.items():
        for n, (a, b, c, d) in enumerate(itertools.product(*parts)):
            if n % 7 == 0:  # a spread of them, not every one
                out.append(
                    (" ".join(w for w in (a, b, c, d) if w) + ".", family, "dev", "combined")
                )
    return out


def outside_examples(data: Path, per_source: int = 1500) -> list[Example]:
    from capture import statements

    out: list[Example] = []
    locomo = json.loads((data / "locomo10.json").read_text())
    for i, sample in enumerate(locomo):
        conv = sample["conversation"]
        for key in sorted(
            k for k in conv if k.startswith("session_") and isinstance(conv[k], list)
        ):
            for turn in conv[key]:
                for s in statements(turn["text"][:2000]):
                    out.append((s.text, NONE, "dev" if i % 2 == 0 else "held", "locomo"))
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        questions = json.load(f)
    lme: list[Example] = []
    for i, q in enumerate(questions):
        for session in q["haystack_sessions"]:
            for turn in session:
                if turn["role"] != "user":
                    continue
                for _, piece in sentence_pieces(turn["content"][:2000]):
                    piece = " ".join(piece.split())
                    if 6 <= len(piece.split()) <= 30 and not piece.endswith("?"):
                        lme.append((piece, NONE, "dev" if i % 2 == 0 else "held", "longmemeval"))
    kept = [e for e in out[: per_source * 3] if not CUES.search(e[0])][:per_source]
    kept += [e for e in lme if not CUES.search(e[0])][:per_source]
    return [e for e in kept if read_text(e[0]).slot.slot is None]


def own_words(text: str) -> str:
    reading = read_text(text)
    return reading.subject.own or text


def fit(x: np.ndarray, y: np.ndarray, classes: int, l2: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    w = rng.normal(0, 0.01, (classes, x.shape[1]))
    b = np.zeros(classes)
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    weight = (len(y) / (classes * np.maximum(counts, 1)))[y]
    onehot = np.eye(classes)[y]
    for _ in range(STEPS):
        logits = x @ w.T + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight[:, None] / len(y)
        w -= RATE * (g.T @ x + l2 * w)
        b -= RATE * g.sum(axis=0)
    return w, b


def predict(w: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.stack([probabilities(w, b, row) for row in x])


def macro_f1(p: np.ndarray, y: np.ndarray, none: int) -> float:
    guess = p.argmax(axis=1)
    scores = []
    for c in range(p.shape[1]):
        if c == none:
            continue
        tp = float(((guess == c) & (y == c)).sum())
        fp = float(((guess == c) & (y != c)).sum())
        fn = float(((guess != c) & (y == c)).sum())
        scores.append(2 * tp / max(1.0, 2 * tp + fp + fn))
    return float(np.mean(scores))


def out_of_fold(x: np.ndarray, y: np.ndarray, classes: int, l2: float) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    p = np.zeros((len(y), classes))
    for held in np.array_split(rng.permutation(len(y)), FOLDS):
        train = np.setdiff1d(np.arange(len(y)), held)
        w, b = fit(x[train], y[train], classes, l2)
        p[held] = predict(w, b, x[held])
    return p


def threshold(p: np.ndarray, y: np.ndarray, none: int) -> float:
    """The lowest probability at which at most NONE_TYPED of the none statements
    get a family."""
    negatives = p[y == none]
    typed = np.where(negatives.argmax(axis=1) != none, negatives.max(axis=1), 0.0)
    for t in np.arange(0.30, 1.0, 0.01):
        if float((typed >= t).mean()) <= NONE_TYPED:
            return round(float(t), 2)
    return 0.99


def report(p: np.ndarray, y: np.ndarray, classes: list[str], t: float) -> dict[str, Any]:
    none = classes.index(NONE)
    typed = (p.argmax(axis=1) != none) & (p.max(axis=1) >= t)
    out: dict[str, Any] = {"none_typed": round(float(typed[y == none].mean()), 4)}
    for c, name in enumerate(classes):
        if c != none and (y == c).any():
            right = typed & (p.argmax(axis=1) == c)
            out[f"{name}_recall"] = round(float(right[y == c].mean()), 3)
    out["n"] = len(y)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    examples = template_examples() + combined_examples() + outside_examples(args.data)
    classes = [*sorted(SLOTS), NONE]
    use = shared_use()
    texts = [own_words(e[0]) for e in examples]
    vectors = np.asarray(use.embed_queries(texts), dtype=np.float64)
    units = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    y = np.array([classes.index(e[1]) for e in examples])
    dev = np.array([e[2] == "dev" for e in examples])
    prototypes = np.stack(
        [units[dev & (y == classes.index(c))].mean(axis=0) for c in sorted(SLOTS)]
    )
    prototypes /= np.linalg.norm(prototypes, axis=1, keepdims=True)
    x = np.stack([features(v, prototypes) for v in vectors])
    none = classes.index(NONE)
    chosen = max(
        GRID, key=lambda l2: macro_f1(out_of_fold(x[dev], y[dev], len(classes), l2), y[dev], none)
    )
    oof = out_of_fold(x[dev], y[dev], len(classes), chosen)
    t = threshold(oof, y[dev], none)
    w, b = fit(x[dev], y[dev], len(classes), chosen)
    held = predict(w, b, x[~dev])
    figures = {
        "l2": chosen,
        "threshold": t,
        "dev_out_of_fold": report(oof, y[dev], classes, t),
        "held": report(held, y[~dev], classes, t),
        "examples": {"dev": int(dev.sum()), "held": int((~dev).sum())},
    }
    print(json.dumps(figures, indent=1))
    if not args.dry_run:
        doc = {
            "classes": classes,
            "weights": np.round(w, 6).tolist(),
            "bias": np.round(b, 6).tolist(),
            "prototypes": np.round(prototypes, 6).tolist(),
            "threshold": t,
            "fitted_by": "bench/meaning_train.py",
            "seed": SEED,
            "l2": chosen,
        }
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print(f"wrote {MODEL_PATH}", file=sys.stderr)


if __name__ == "__main__":
    main()
