"""LongMemEval retrieval through `memory ingest` and `memory search --batch`.

    python bench/longmemeval.py ../shared/data/longmemeval [--protocol oracle|s|both]
        [--questions N] [--card] [--keep DIR] [--variant NAME=TOML ...]

Protocols (../shared/data/README.md):
- **pooled oracle**: one workspace holding all 940 evidence sessions, one
  page per session (`origin_date` = its haystack date, body = its turns with
  their roles); the 470 non-abstention questions search it. Relevant = the
  question's `answer_session_ids`.
- **S sample**: each of the 60 sampled questions searches only its own
  haystack (38-58 sessions), one workspace per question.

Pages are staged as files and imported with `memory ingest` (which indexes
them); every variant is one `memory search --batch --k 10` run over every
question, differing only in the workspace's fusion settings: `default`,
`bm25` (BM25 alone), `minilm` (the English dense model alone) and `use` (the
multilingual model alone), and each `--variant` (other `memory.substrate`
lines, e.g. `before=sparse_min_coverage = 0.15`). Figures: R@5, R@10 and nDCG@10 overall, per
question type, on each half (alternate questions: parameters are chosen on
one half and reported on the other), and on the **low-overlap** stratum:
questions whose content words (the index's tokenizer: stemmed, stopwords
out) are at most 30% present in their evidence turns (`has_answer`; the
evidence sessions when a question marks none).

`--card` (oracle) also renders each question's `<memory>` card (`memory card
--batch`, a fresh conversation each) and scores **evidence in card**: the
share of the best evidence turn's content words present in the card text,
and whether at least 80% of them are ("turn in card"), against plain search's
top 5 rendered by the card's own renderer and the v2 engine's block
(`v2_engine`: the same workspace switched to tier v2), both at the same
character budget.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from common import named_toml

from injector.v3.card import CardPage, render_card
from substrate import memory_tier, parse_config
from substrate.config.tuning import resolve_v2_tuning, resolve_v3_tuning
from substrate.index.bm25 import tokenize
from substrate.pages import in_words

ALONE = "dense_anchor_floor = 0.0\n"  # one signal alone: no anchoring by another
VARIANTS: dict[str, str] = {
    "default": "",
    "bm25": "dense_weight = 0.0\nsparse_weight = 1.0\nmultilingual_weight = 0.0\n" + ALONE,
    "minilm": "dense_weight = 1.0\nsparse_weight = 0.0\nmultilingual_weight = 0.0\n" + ALONE,
    "use": "dense_weight = 0.0\nsparse_weight = 0.0\nmultilingual_weight = 1.0\n" + ALONE,
}
LOW_OVERLAP = 0.3
TURN_IN_CARD = 0.8
_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2})(?: \(\w+\))? (\d{2}):(\d{2})")


def memory(*args: str, stdin: str | None = None, tolerate: bool = False) -> str:
    """`memory ARGS`; `tolerate`: a nonzero exit with a JSON report on stdout (an
    ingest that refused some pages) is the report, not a failure."""
    command = [str(Path(sys.executable).parent / "memory"), *args]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0 and not (tolerate and done.stdout.strip().startswith("{")):
        raise SystemExit(f"{' '.join(command[1:3])} failed:\n{done.stderr}{done.stdout[-2000:]}")
    return done.stdout


def iso_date(haystack_date: str) -> str:
    """'2023/05/20 (Sat) 02:21' -> '2023-05-20T02:21:00'."""
    m = _DATE.match(haystack_date)
    if not m:
        raise SystemExit(f"unexpected haystack date {haystack_date!r}")
    y, mo, d, h, mi = m.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:00"


def page_text(session_id: str, date: str, turns: list[dict[str, Any]]) -> str:
    body = "\n".join(f"{t['role']}: {t['content']}" for t in turns)
    return f"---\ntitle: Session {session_id}\norigin_date: {iso_date(date)}\n---\n{body}\n"


def slug_of(session_id: str) -> str:
    return "lme/" + re.sub(r"[^a-z0-9-]+", "-", session_id.lower()).strip("-")


def stage(folder: Path, sessions: dict[str, tuple[str, list[dict[str, Any]]]]) -> None:
    for sid, (date, turns) in sessions.items():
        path = folder / f"{slug_of(sid)}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page_text(sid, date, turns), encoding="utf-8")


def build(root: Path, sessions: dict[str, tuple[str, list[dict[str, Any]]]]) -> float:
    with tempfile.TemporaryDirectory() as staging:
        stage(Path(staging), sessions)
        memory("init", "--workspace", str(root))
        started = time.perf_counter()
        report = json.loads(
            memory("ingest", staging, "--workspace", str(root), "--json", tolerate=True)
        )
        pages = next((v for v in report.values() if isinstance(v, list)), [])
        for page in pages:
            if isinstance(page, dict) and page.get("status") == "failed":
                print(f"ingest refused {page.get('slug')}: {page.get('error')}", file=sys.stderr)
        return time.perf_counter() - started


def set_fusion(root: Path, template: str, extra: str) -> None:
    config = template.replace("[memory.substrate]\n", f"[memory.substrate]\n{extra}", 1)
    (root / "config.toml").write_text(config, encoding="utf-8")


def search(root: Path, questions: list[str], k: int = 10) -> list[list[dict[str, Any]]]:
    lines = "".join(json.dumps({"query": q}, ensure_ascii=False) + "\n" for q in questions)
    out = memory("search", "--workspace", str(root), "--batch", "--k", str(k), stdin=lines)
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    if len(answers) != len(questions):
        raise SystemExit(f"asked {len(questions)} questions, got {len(answers)} answers")
    return [a["hits"] for a in answers]


def scores(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    dcg = sum(1 / math.log2(i + 2) for i, s in enumerate(ranked[:10]) if s in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(relevant))))
    return {
        "R@5": len(set(ranked[:5]) & relevant) / len(relevant),
        "R@10": len(set(ranked[:10]) & relevant) / len(relevant),
        "nDCG@10": dcg / ideal,
    }


def evidence_tokens(question: dict[str, Any], sessions: dict[str, Any]) -> set[str]:
    turns = [
        t["content"] for s in question["haystack_sessions"] for t in s if t.get("has_answer")
    ] or [t["content"] for sid in question["answer_session_ids"] for t in sessions[sid][1]]
    return {tok for text in turns for tok in tokenize(text)}


def overlap(question: str, evidence: set[str]) -> float:
    terms = set(tokenize(question))
    return len(terms & evidence) / len(terms) if terms else 1.0


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(sum(r[k] for r in rows) / len(rows), 3) for k in rows[0]} if rows else {}


def table(rows: dict[str, list[tuple[dict[str, Any], dict[str, float]]]]) -> dict[str, Any]:
    """Means per variant: overall, per type, per half, low-overlap stratum."""
    out: dict[str, Any] = {}
    for variant, scored in rows.items():
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for meta, s in scored:
            groups["all"].append(s)
            groups[f"type {meta['type']}"].append(s)
            groups[f"half {meta['index'] % 2}"].append(s)
            if meta["overlap"] <= LOW_OVERLAP:
                groups[f"low overlap (<= {LOW_OVERLAP})"].append(s)
        out[variant] = {g: {"n": len(v), **mean(v)} for g, v in sorted(groups.items())}
    return out


def load_oracle(data: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    with gzip.open(data / "longmemeval_oracle.json.gz", "rt", encoding="utf-8") as f:
        everything = json.load(f)
    sessions: dict[str, Any] = {}
    for q in everything:
        for sid, date, turns in zip(
            q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
        ):
            sessions.setdefault(sid, (date, turns))
    questions = [q for q in everything if not q["question_id"].endswith("_abs")]
    return questions, sessions


def oracle(args: argparse.Namespace, base: Path) -> dict[str, Any]:
    questions, sessions = load_oracle(args.data)
    questions = questions[: args.questions]
    root = base / "oracle"
    reuse = args.reuse and (root / "config.toml").exists()
    seconds = 0.0 if reuse else build(root, sessions)
    print(f"oracle: ingested {len(sessions)} sessions in {seconds:.0f} s", file=sys.stderr)
    meta = [
        {
            "index": i,
            "type": q["question_type"],
            "overlap": overlap(q["question"], evidence_tokens(q, sessions)),
            "relevant": {slug_of(s) for s in q["answer_session_ids"]},
        }
        for i, q in enumerate(questions)
    ]
    template = (root / "config.toml").read_text()
    rows: dict[str, list[tuple[dict[str, Any], dict[str, float]]]] = {}
    timing = {}
    for name, extra in VARIANTS.items():
        set_fusion(root, template, extra)
        started = time.perf_counter()
        hits = search(root, [q["question"] for q in questions])
        timing[name] = round(time.perf_counter() - started, 1)
        rows[name] = [
            (m, scores([h["slug"] for h in found], m["relevant"]))
            for m, found in zip(meta, hits, strict=True)
        ]
        print(f"oracle {name}: {mean([s for _, s in rows[name]])}", file=sys.stderr)
    (root / "config.toml").write_text(template)
    report: dict[str, Any] = {
        "sessions": len(sessions),
        "questions": len(questions),
        "ingest_s": round(seconds, 1),
        "search_batch_s": timing,
        "variants": table(rows),
    }
    if args.card:
        report["card"] = card_figures(root, questions, sessions)
    return report


def cut_inside(text: str) -> bool:
    """A line of an excerpt that ends inside a fact (the ellipsis a cut leaves; a
    line that is only an ellipsis marks skipped whole facts, also inside the
    `> ` quoting of imported pages)."""
    return any(
        line.rstrip().endswith("…") and line.strip().lstrip(">").strip() != "…"
        for line in text.split("\n")
    )


def turn_share(card: str, turns: list[str]) -> float:
    """The best evidence turn's share of content words present in the card."""
    words = set(tokenize(card))
    best = 0.0
    for turn in turns:
        terms = set(tokenize(turn))
        if terms:
            best = max(best, len(terms & words) / len(terms))
    return best


def cards_for(root: Path, lines: str) -> list[dict[str, Any]]:
    out = memory("card", "--workspace", str(root), "--batch", stdin=lines)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def card_figures(
    root: Path, questions: list[dict[str, Any]], sessions: dict[str, Any]
) -> dict[str, Any]:
    template = (root / "config.toml").read_text()
    budget = resolve_v3_tuning(parse_config(template)).card_budget_chars
    assert resolve_v2_tuning(parse_config(template)).router_budget_chars == budget
    lines = "".join(json.dumps({"message": q["question"]}) + "\n" for q in questions)
    cards = cards_for(root, lines)
    v2_config = template.replace("live = true", "live = false", 1)
    assert memory_tier(parse_config(v2_config)) == "v2"
    (root / "config.toml").write_text(v2_config)
    try:
        v2_cards = cards_for(root, lines)  # the v2 engine's block, same index and budget
    finally:
        (root / "config.toml").write_text(template)
    plain = search(root, [q["question"] for q in questions], k=5)
    out: dict[str, list[dict[str, float]]] = defaultdict(list)
    for q, card, v2, hits in zip(questions, cards, v2_cards, plain, strict=True):
        turns = [t["content"] for s in q["haystack_sessions"] for t in s if t.get("has_answer")]
        if not turns:
            continue
        relevant = {slug_of(s) for s in q["answer_session_ids"]}
        pages = [
            CardPage(
                h["slug"],
                h["title"],
                (h["fresh_at"] or "")[:10] or None,
                ("sim",),
                h.get("source"),
                h["excerpt"],
                h.get("quarantine"),  # rendered as the card renders it
            )
            for h in hits
        ]
        rendered, shown = render_card(pages, budget, in_words(dt.date.today()))
        for name, text, slugs in (
            ("card", card["memory"], {s["slug"] for s in card["selected"]}),
            ("v2_engine", v2["memory"], {s["slug"] for s in v2["selected"]}),
            ("search_top5_at_budget", rendered, {p.slug for p in shown}),
        ):
            share = turn_share(text, turns)
            out[name].append(
                {
                    "evidence_share": share,
                    "turn_in_card": float(share >= TURN_IN_CARD),
                    "page_hit": float(bool(slugs & relevant)),
                    "pages": float(len(slugs)),
                    "chars": float(len(text)),
                    "budget_used": len(text) / budget,
                    "cut_inside_a_fact": float(cut_inside(text)),
                }
            )
    return {name: {"n": len(rows), **mean(rows)} for name, rows in out.items()}


def s_sample(args: argparse.Namespace, base: Path) -> dict[str, Any]:
    questions: list[dict[str, Any]] = []
    sessions: dict[str, Any] = {}
    for part in (1, 2, 3):
        with gzip.open(
            args.data / f"longmemeval_s_cleaned.sample60.part{part}.json.gz", "rt", encoding="utf-8"
        ) as f:
            doc = json.load(f)
        questions += doc["questions"]
        sessions.update(doc["sessions"])
    questions = [q for q in questions if not q["question_id"].endswith("_abs")][: args.questions]
    rows: dict[str, list[tuple[dict[str, Any], dict[str, float]]]] = defaultdict(list)
    ingest_s = 0.0
    for i, q in enumerate(questions):
        root = base / f"s-{i}"
        haystack = {
            sid: (date, sessions[sid])
            for sid, date in zip(q["haystack_session_ids"], q["haystack_dates"], strict=True)
        }
        ingest_s += build(root, haystack)
        evidence = {
            tok
            for sid in q["answer_session_ids"]
            for t in sessions[sid]
            if t.get("has_answer")
            for tok in tokenize(t["content"])
        }
        meta = {
            "index": i,
            "type": q["question_type"],
            "overlap": overlap(q["question"], evidence),
            "relevant": {slug_of(s) for s in q["answer_session_ids"]},
        }
        template = (root / "config.toml").read_text()
        for name, extra in VARIANTS.items():
            set_fusion(root, template, extra)
            (found,) = search(root, [q["question"]])
            rows[name].append((meta, scores([h["slug"] for h in found], meta["relevant"])))
        print(f"s sample: question {i + 1}/{len(questions)}", file=sys.stderr)
        if not args.keep:
            subprocess.run(["rm", "-rf", str(root)], check=False)
    return {"questions": len(questions), "ingest_s": round(ingest_s, 1), "variants": table(rows)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path, help="the folder holding the LongMemEval files")
    parser.add_argument("--protocol", choices=["oracle", "s", "both"], default="oracle")
    parser.add_argument("--questions", type=int, help="use only the first N questions")
    parser.add_argument("--card", action="store_true", help="also score evidence in the card")
    parser.add_argument("--keep", type=Path, help="build the workspaces here and keep them")
    parser.add_argument(
        "--reuse", action="store_true", help="with --keep: search the oracle workspace built there"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        type=lambda spec: named_toml(spec, "memory.substrate", "--variant"),
        metavar="NAME=TOML",
        help="also search with these `memory.substrate` lines (`;` between lines)",
    )
    args = parser.parse_args()
    VARIANTS.update(dict(args.variant))
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        if args.protocol in ("oracle", "both"):
            report["oracle"] = oracle(args, base)
        if args.protocol in ("s", "both"):
            report["s_sample"] = s_sample(args, base)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
