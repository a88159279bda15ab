"""Supersession: does the card show what is true now, and still tell what was?

    python bench/supersession.py [--data bench/data/supersession.jsonl] [--users N]
        [--half all|even|odd] [--no-baselines] [--show N]

For each user of the development set (`bench/supersession_data.py`), the same
statements three ways (`bench/filing.py`): consolidated, one page per
statement, one page per session (a day's statements). Each question gets a
fresh `<memory>` card, dated the day after the user's last statement, and is
scored on it:

- **current in card** (questions about the value now): every current value
  is on the card;
- **stale as current**: an earlier value stands on a card line that neither
  names the current value nor marks itself as history ("was:", "until",
  "no longer", "ended:");
- **history recall** (questions about the value before): the earlier value
  is on the card;
- **both** (facts that accumulate, two pets): both on the card, neither as
  history.

Figures overall, per language, for chains with a backdated arrival, and per
half (even users choose parameters, odd ones report). `--show N` prints the
cards of the first N failures per layout.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from filing import (
    Fact,
    ask,
    build_consolidated,
    build_pages,
    hygiene,
    load_models,
    merge_hygiene,
    per_session,
    per_statement,
)

DATA = Path(__file__).parent / "data" / "supersession.jsonl"
# A line that says a value is history, someone else's words, or ended is no
# stale current value.
# How a card line marks itself as history: a replaced fact ("was:"), an ended one
# ("no longer true"), the words that told an end ("ended:", `pages.facts`).
HISTORY_MARKS = (
    "was:", "until", "no longer", "earlier", "passed on", "moved out of", "i left ", "ended:"
)  # fmt: skip
LAYOUTS = ("consolidated", "per_statement", "per_session")


def facts_of(user: dict[str, Any]) -> list[Fact]:
    return [
        Fact(s["text"], datetime.fromisoformat(s["at"]), s["at"][:10]) for s in user["statements"]
    ]


def present(value: str, text: str) -> bool:
    return value.casefold() in text.casefold()


def stale_as_current(question: dict[str, Any], card: str) -> bool:
    for line in card.split("\n"):
        folded = line.casefold()
        if any(present(a, line) for a in question["answer"]):
            continue
        if any(mark in folded for mark in HISTORY_MARKS):
            continue
        if any(present(s, line) for s in question["stale"]):
            return True
    return False


def score(question: dict[str, Any], card: str) -> dict[str, float]:
    kind = question["kind"]
    if kind == "current":
        return {
            "current_in_card": float(all(present(a, card) for a in question["answer"])),
            "stale_as_current": float(stale_as_current(question, card)),
        }
    if kind == "history":
        return {"history_recall": float(all(present(a, card) for a in question["answer"]))}
    shown = all(present(a, card) for a in question["answer"])
    marked = any(
        present(a, line) and any(m in line.casefold() for m in HISTORY_MARKS)
        for a in question["answer"]
        for line in card.split("\n")
    )
    return {"both_current": float(shown and not marked)}


def mean(rows: list[dict[str, float]]) -> dict[str, Any]:
    sums: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for key, value in row.items():
            sums[key].append(value)
    return {k: round(sum(v) / len(v), 3) for k, v in sorted(sums.items())} | {"n": len(rows)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--half", choices=["all", "even", "odd"], default="all")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--toml", default="", help="[memory.substrate] lines (';' separates)")
    args = parser.parse_args()
    users = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    users = [u for i, u in enumerate(users) if args.half == "all" or i % 2 == (args.half == "odd")]
    users = users[: args.users]
    toml = "".join(f"{line.strip()}\n" for line in args.toml.split(";") if line.strip())
    layouts = LAYOUTS[:1] if args.no_baselines else LAYOUTS
    models = load_models()
    rows: dict[str, dict[str, list[dict[str, float]]]] = {
        name: defaultdict(list) for name in layouts
    }
    pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    shown: dict[str, int] = defaultdict(int)
    filing_s = [0.0, 0.0, 0]
    with tempfile.TemporaryDirectory() as scratch:
        for n, user in enumerate(users):
            facts = facts_of(user)
            now = (max(f.at for f in facts) + timedelta(days=1)).timestamp()
            for name in layouts:
                root = Path(scratch, f"{user['user']}-{name}")
                if name == "consolidated":
                    settings, index, timing = build_consolidated(root, facts, models, toml)
                    filing_s[0] += timing["seconds"] - timing["model_seconds"]
                    filing_s[1] += timing["model_seconds"]
                    filing_s[2] += len(facts)
                else:
                    layout = per_statement(facts) if name == "per_statement" else per_session(facts)
                    settings, index, _ = build_pages(root, layout, models)
                pages[name].append(hygiene(settings))
                questions = user["questions"]
                _, cards, _ = ask(settings, index, [q["q"] for q in questions], now)
                index.store.close()
                for q, card in zip(questions, cards, strict=True):
                    row = score(q, card)
                    for group in (
                        "all",
                        user["lang"],
                        *(["backdated"] if q.get("backdated") else []),
                    ):
                        rows[name][group].append(row)
                    failed = row.get("current_in_card", 1) < 1 or row.get("stale_as_current", 0) > 0
                    failed = (
                        failed or row.get("history_recall", 1) < 1 or row.get("both_current", 1) < 1
                    )
                    if failed and shown[name] < args.show:
                        shown[name] += 1
                        print(
                            f"--- {name} {user['user']} {q['kind']} {q['q']} -> {q['answer']} (stale {q['stale']})\n{card}\n",
                            file=sys.stderr,
                        )
            print(f"user {n + 1}/{len(users)} {user['user']}", file=sys.stderr)
    report: dict[str, Any] = {"users": len(users), "half": args.half}
    for name in layouts:
        report[name] = {group: mean(r) for group, r in rows[name].items()} | {
            "hygiene": merge_hygiene(pages[name])
        }
    if filing_s[2]:
        report["consolidated"]["filing_s_per_100_facts"] = {
            "rest": round(100 * filing_s[0] / filing_s[2], 3),
            "model": round(100 * filing_s[1] / filing_s[2], 3),
        }
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
