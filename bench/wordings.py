"""Supersession from everyday wordings: does a newer statement replace the older
one it updates, and leave alone one it does not?

    python bench/wordings.py ../shared/data [--show N]

Pairs (older statement, newer statement, should it replace):

- **longmemeval**: the knowledge-update questions' evidence turns, in session
  order: from the first and the last turn holding the answer, the two
  statements (questions left out) that share the most content words (the
  update); negatives pair
  the newer sentence with a sentence of the same person's other turns that
  shares few words with it.
- **locomo**: negatives only (LoCoMo marks no updates): consecutive durable
  statements one speaker makes, as the offline extractor captures them.
- **families**: the wordings the issue names (starting, joining, leaving,
  moving in, buying, switching, "now", "these days", "no longer"), English
  and Arabic, over every slot family, as positives, and across families as
  negatives.

Each set is halved: longmemeval and locomo by question or conversation
(alternate ones), families by wording (alternate templates). Rules are chosen
on `dev` and reported on `held`. A pair is read by the filer's own decision
(`lifecycle.decide`) with the older fact current on the page: replaced when it
updates or retracts it.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
from datetime import date
from pathlib import Path
from typing import Any

from capture import statements

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.meaning.sentences import sentence_pieces
from substrate.pages import FactBullet

WORD = re.compile(r"[a-z0-9']+")
STOP = set(
    "a an the of to in on at for and or is are was were be been i my me it this that i'm i've "
    "so but by with from as just have has had do did you your we our".split()
)
Pair = tuple[str, str, bool, str, str]  # old, new, replaces, set, half

# (family, older, newer wordings): {v} and {w} are values of the family.
FAMILIES: list[tuple[str, list[str], list[str], list[tuple[str, str]]]] = [
    (
        "home",
        ["I live in {v}.", "We're based in {v}."],
        [
            "I moved to {w} last month.",
            "We bought a house in {w} and moved in this week.",
            "I'm living in {w} now.",
            "We just relocated to {w}.",
            "These days I live in {w}.",
            "I no longer live in {v}; I'm in {w} now.",
        ],
        [("Leeds", "Salford"), ("Didsbury", "Bristol"), ("Lyon", "Paris")],
    ),
    (
        "employer",
        ["I work at {v}.", "I'm at {v}."],
        [
            "I started a new job as a product manager at {w}.",
            "I joined {w} in March.",
            "I left {v} and now work at {w}.",
            "I'm working for {w} these days.",
            "I got a job at {w}.",
            "I switched jobs, I'm at {w} now.",
        ],
        [("Initech", "Acme Robotics"), ("Globex", "Stark Labs"), ("Northwind", "Contoso")],
    ),
    (
        "role",
        ["I'm a {v}.", "I work as a {v}."],
        [
            "I got promoted to {w}.",
            "My new title is {w}.",
            "I'm now a {w}.",
            "I became a {w} last month.",
        ],
        [("data analyst", "senior analyst"), ("staff engineer", "engineering manager")],
    ),
    (
        "diet",
        ["I'm {v}."],
        ["I'm {w} now.", "I'm {w} these days.", "I went {w} last month.", "I've gone {w}."],
        [("vegetarian", "vegan"), ("vegan", "pescatarian")],
    ),
    (
        "preference",
        ["I prefer {v}.", "Prefer {v}, honestly."],
        [
            "I prefer {w} now.",
            "Prefer {w} these days.",
            "I switched to {w}.",
            "Honestly, I prefer {w}.",
        ],
        [("dark mode", "light mode"), ("tea", "coffee")],
    ),
    (
        "arabic home",
        ["أسكن في {v}.", "أعيش في {v}."],
        ["انتقلت إلى {w}.", "اشترينا شقة في {w}.", "صرت أسكن في {w}.", "أسكن الآن في {w}."],
        [("القاهرة", "دبي"), ("عمّان", "بيروت")],
    ),
    (
        "arabic employer",
        ["أعمل في شركة {v}.", "أعمل لدى {v}."],
        ["انضممت إلى {w}.", "بدأت العمل في شركة {w}.", "صرت أعمل في {w}.", "التحقت بشركة {w}."],
        [("أرامكو", "سابك"), ("زين", "أورنج")],
    ),
]


def content(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def overlap(a: str, b: str) -> float:
    x, y = content(a), content(b)
    return len(x & y) / max(1, len(x | y))


def replaces(old: str, new: str) -> bool:
    before = FactBullet("aaaaaaaaaaaa", date(2024, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), new)
    return decide(after, reading_of(new), [before]).action in ("update", "retract")


def sentences(turn: str) -> list[str]:
    """A turn's statements (a question states nothing to supersede)."""
    pieces = [p.strip() for _, p in sentence_pieces(turn[:4000])]
    return [p for p in pieces if len(content(p)) >= 3 and not p.endswith("?")]


def longmemeval(data: Path) -> list[Pair]:
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        questions = [q for q in json.load(f) if q["question_type"] == "knowledge-update"]
    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    for i, q in enumerate(questions):
        half = "dev" if i % 2 == 0 else "held"
        order = sorted(range(len(q["haystack_sessions"])), key=lambda k: q["haystack_dates"][k])
        turns = [t for k in order for t in q["haystack_sessions"][k] if t["role"] == "user"]
        marked = [t["content"] for t in turns if t.get("has_answer")]
        if len(marked) < 2:
            continue
        best = max(
            ((a, b) for a in sentences(marked[0]) for b in sentences(marked[-1])),
            key=lambda ab: overlap(*ab),
            default=None,
        )
        if best is None or best in seen or overlap(*best) < 0.2:
            continue
        seen.add(best)
        pairs.append((best[0], best[1], True, "longmemeval", half))
        others = [s for t in turns if not t.get("has_answer") for s in sentences(t["content"])]
        unrelated = [s for s in others if overlap(s, best[1]) < 0.1]
        if unrelated:
            pairs.append((unrelated[0], best[1], False, "longmemeval", half))
    return pairs


def locomo(data: Path, per_speaker: int = 60) -> list[Pair]:
    pairs: list[Pair] = []
    for i, sample in enumerate(json.loads((data / "locomo10.json").read_text())):
        half = "dev" if i % 2 == 0 else "held"
        said: dict[str, list[str]] = {}
        conv = sample["conversation"]
        for key in sorted(
            k for k in conv if k.startswith("session_") and isinstance(conv[k], list)
        ):
            for turn in conv[key]:
                for s in statements(turn["text"][:2000]):
                    said.setdefault(turn["speaker"], []).append(s.text)
        for texts in said.values():
            for old, new in list(itertools.pairwise(texts))[:per_speaker]:
                pairs.append((old, new, False, "locomo", half))
    return pairs


def families() -> list[Pair]:
    pairs: list[Pair] = []
    for n, (_, olds, news, values) in enumerate(FAMILIES):
        for j, new in enumerate(news):
            half = "dev" if j % 2 == 0 else "held"
            for v, w in values:
                for old in olds:
                    pairs.append((old.format(v=v), new.format(v=v, w=w), True, "families", half))
            other = FAMILIES[(n + 1) % len(FAMILIES)]
            v, w = other[3][0]
            pairs.append(
                (
                    other[1][0].format(v=v),
                    new.format(v=values[0][0], w=values[0][1]),
                    False,
                    "families",
                    half,
                )
            )
    return pairs


def scored(pairs: list[Pair]) -> dict[str, Any]:
    pos = [p for p in pairs if p[2]]
    neg = [p for p in pairs if not p[2]]
    hit = sum(replaces(p[0], p[1]) for p in pos)
    false = sum(replaces(p[0], p[1]) for p in neg)
    return {
        "positives": len(pos),
        "recall": round(hit / len(pos), 3) if pos else None,
        "negatives": len(neg),
        "false_supersessions": round(false / len(neg), 3) if neg else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--show", type=int, default=0, help="misses to print per set")
    args = parser.parse_args()
    pairs = [*longmemeval(args.data), *locomo(args.data), *families()]
    out: dict[str, Any] = {}
    for name in ("longmemeval", "locomo", "families"):
        for half in ("dev", "held"):
            out[f"{name}/{half}"] = scored([p for p in pairs if p[3] == name and p[4] == half])
    for half in ("dev", "held"):
        out[f"all/{half}"] = scored([p for p in pairs if p[4] == half])
    if args.show:
        misses = [p for p in pairs if p[4] == "dev" and replaces(p[0], p[1]) != p[2]]
        out["dev_misses"] = [
            f"{p[3]} {p[2]}: {p[0][:90]} -> {p[1][:90]}" for p in misses[: args.show]
        ]
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
