"""Capture without a model: what the offline extractor keeps, and what the whole
path (import → capture → consolidate) puts in the card.

    python bench/capture.py ../shared/data [--half all|even|odd] [--questions N]
        [--no-path] [--labels bench/data/capture_labels.jsonl]

Figures:

- **recall**: of the user turns that hold an answer, the share from which a
  captured statement keeps it. LongMemEval oracle: the turns marked
  `has_answer`; LoCoMo: the turns a question (categories 1-4) names as its
  evidence. Only turns that hold at least one of the answer's content words
  count (an answer a turn implies but never says, "three" sessions or a sum of
  hours, no extractor keeps); a turn is kept when its captured statements hold
  at least 80% of the answer words the turn holds. Each set by half
  (alternate questions): `even` or `odd`.
- **precision**: the share of captured statements labelled durable facts
  about the speaker, on the hand-labelled sample (`--labels`; how it was drawn
  and labelled: `bench/data/capture_labels.md`). The statements are
  recomputed from the labelled turns, so a changed extractor is scored on what
  it captures now (a statement without a label is counted and shown).
- **cost**: extraction milliseconds per user turn (median and mean over every
  user turn), and seconds per finalized session without a model
  (`capture_offline` on a real workspace: the extraction and each fact's
  durable buffer write), median over 100 sessions.
- **path** (LongMemEval oracle, each question its own user): its evidence
  sessions written as JSON Lines and brought in by `memory import`'s library
  call, captured offline, consolidated with the search index; against the same
  sessions ingested as pages (one page per session, both roles, as
  `bench/longmemeval.py` stages them). Scored per question type:
  `evidence_in_card` (the best evidence turn's content words present in the
  card), `turn_in_card` (at least 80% of them), `answer_in_card` (the answer
  as written, when it is at most 40 characters), `search5_answer_in_card` (the
  same in plain search's top 5 over that workspace, rendered at the card's
  budget), `stale_only` (knowledge-update: an evidence turn said before the
  value changed is on the card, and neither the current answer as written
  nor the newest statement is: the card shows only the stale value),
  `stale_without_answer` (the stale turn on the card and the answer as
  written not: a yes/no answer or one reworded counts here even when the
  newest statement is on the card), `stale_as_current` (`stale_only` on the
  card's pages alone: not inside an `<episode>`, which is dated and says it
  was said then), `captured`
  facts per question. The arms: `imported` (captured pages: today's path),
  `imported_episodes` (those pages and the log's episodes), `episodes_only`
  (the log's episodes, no capture), `pages` (one page per session).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from common import named_toml, project_module
from filing import Models, ask, build_pages, load_models, served_log, with_v3, workspace
from longmemeval import page_text, slug_of, turn_share

from injector import Injector
from substrate.consolidation import consolidate_all
from substrate.curation import capture_offline
from substrate.curation.judge import DurabilityJudge
from substrate.curation.statements import Statement, durable_statements
from substrate.index import open_search_index
from substrate.index.use_embedder import shared_use
from substrate.sessions import open_session_log
from substrate.sessions.episodes import LoggedEpisodes

import_conversations = project_module("ingest.chat_import").import_conversations
episode_entries = project_module("service.maintaining").episode_entries
STOP = set(
    "a an the of to in on at for and or is are was were be been i my me you your it this that "
    "with from by as how many much what which who when where did do does have has had".split()
)
KEEP = 0.8
EPISODE_ELEMENT = re.compile(r"<episode [^>]*>.*?</episode>", re.S)
ARMS = ("imported", "imported_episodes", "episodes_only", "pages")
SHORT_ANSWER = 40  # characters: an answer this short is looked for in the card as written
EVIDENCE = re.compile(r"D(\d+):(\d+)")
LME_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2})(?: \(\w+\))? (\d{2}):(\d{2})")


@lru_cache(maxsize=4096)
def embed(text: str) -> Any:
    """The product's sentence embedder, as the composition root gives it."""
    return shared_use().embed_query(text)


@dataclass
class Extractor:
    """The extractor measured: the rules and the judge over the product's sentence
    embedder, or the rules alone (`--rules-only`: `main` sets both to None
    before anything is measured)."""

    embed: Any
    judge: DurabilityJudge | None


EXTRACTOR = Extractor(embed, DurabilityJudge(embed))


def statements(turn: str) -> list[Statement]:
    """What capture keeps of a turn: the rules' proposals the judge keeps."""
    return durable_statements(turn, EXTRACTOR.judge)


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def kept(turn: str, answer: str) -> bool | None:
    """Whether the turn's statements keep the answer; None: the turn never says it."""
    wanted = words(answer) & words(turn)
    if not wanted:
        return None
    found = set().union(*(words(s.text) for s in statements(turn)))
    return len(wanted & found) >= KEEP * len(wanted)


def halves(rows: list[tuple[int, bool]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, keep in (("all", lambda i: True), ("even", lambda i: i % 2 == 0)):
        chosen = [ok for i, ok in rows if keep(i)]
        out[name] = {"turns": len(chosen), "recall": round(sum(chosen) / max(1, len(chosen)), 3)}
    odd = [ok for i, ok in rows if i % 2 == 1]
    out["odd"] = {"turns": len(odd), "recall": round(sum(odd) / max(1, len(odd)), 3)}
    return out


def lme(data: Path) -> list[dict[str, Any]]:
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        return [q for q in json.load(f) if not q["question_id"].endswith("_abs")]


def lme_recall(questions: list[dict[str, Any]]) -> dict[str, Any]:
    rows, seen = [], set()
    for i, q in enumerate(questions):
        for session in q["haystack_sessions"]:
            for turn in session:
                if turn["role"] != "user" or not turn.get("has_answer"):
                    continue
                key = (turn["content"], str(q["answer"]))
                if key in seen:
                    continue
                seen.add(key)
                ok = kept(turn["content"], str(q["answer"]))
                if ok is not None:
                    rows.append((i, ok))
    return halves(rows)


def locomo_recall(data: Path) -> dict[str, Any]:
    rows, n = [], 0
    for sample in json.loads((data / "locomo10.json").read_text()):
        conv = sample["conversation"]
        turns = {
            t["dia_id"]: t["text"]
            for k, v in conv.items()
            if k.startswith("session_") and isinstance(v, list)
            for t in v
        }
        for qa in sample["qa"]:
            if qa.get("category") not in (1, 2, 3, 4):
                continue
            for ev in qa.get("evidence", []):
                for a, b in EVIDENCE.findall(ev):
                    turn = turns.get(f"D{a}:{b}")
                    ok = kept(turn, str(qa["answer"])) if turn else None
                    if ok is not None:
                        rows.append((n, ok))
            n += 1
    return halves(rows)


def precision(labels: Path) -> dict[str, Any]:
    """The labelled sample, recomputed with the extractor as it is now."""
    rows = [json.loads(line) for line in labels.read_text().splitlines() if line.strip()]
    judged = {(r["turn"], r["statement"]): r["durable"] for r in rows}
    turns = {r["turn"]: r["set"] for r in rows}
    found = {"lme": [0, 0], "locomo": [0, 0]}
    unlabelled = []
    for turn, which in turns.items():
        for s in statements(turn):
            label = judged.get((turn, s.text))
            if label is None:
                unlabelled.append(s.text)
                continue
            found[which][0] += bool(label)
            found[which][1] += 1
    good = sum(v[0] for v in found.values())
    total = sum(v[1] for v in found.values())
    return {
        "labelled": total,
        "precision": round(good / max(1, total), 3),
        **{
            k: {"labelled": v[1], "precision": round(v[0] / max(1, v[1]), 3)}
            for k, v in found.items()
        },
        "unlabelled_now": len(unlabelled),
        "unlabelled_examples": unlabelled[:5],
    }


def cost(questions: list[dict[str, Any]]) -> dict[str, Any]:
    turns = list(
        dict.fromkeys(
            t["content"]
            for q in questions
            for s in q["haystack_sessions"]
            for t in s
            if t["role"] == "user"
        )
    )
    times = []
    fresh = EXTRACTOR.judge and DurabilityJudge(shared_use().embed_query)
    for turn in turns:  # the judge above caches no vectors
        started = time.perf_counter()
        durable_statements(turn, fresh)
        times.append((time.perf_counter() - started) * 1000)
    sessions = []
    with tempfile.TemporaryDirectory() as scratch:
        settings = replace(workspace(Path(scratch, "ws")), embed=EXTRACTOR.embed)
        log = open_session_log(settings.workspace)
        export = Path(scratch, "sessions.jsonl")
        chosen = [
            (sid, date, turns_)
            for q in questions[:100]
            for sid, date, turns_ in zip(
                q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
            )
        ][:100]
        export.write_text("".join(jsonl_rows(sid, date, t) for sid, date, t in chosen))
        import_conversations(log, "jsonl", export)
        for sid, _, _ in chosen:
            started = time.perf_counter()
            capture_offline(settings, log, f"import:jsonl:{sid}", time.time())
            sessions.append(time.perf_counter() - started)
        log.close()
    return {
        "user_turns": len(turns),
        "extract_ms_per_turn": {
            "median": round(statistics.median(times), 3),
            "mean": round(statistics.fmean(times), 3),
            "max": round(max(times), 2),
        },
        "seconds_per_finalized_session": {
            "median": round(statistics.median(sessions), 4),
            "sessions": len(sessions),
        },
    }


def lme_time(text: str) -> float:
    m = LME_DATE.match(text)
    if not m:
        raise SystemExit(f"unexpected haystack date {text!r}")
    y, mo, d, h, mi = (int(g) for g in m.groups())
    return datetime(y, mo, d, h, mi, tzinfo=UTC).timestamp()


def jsonl_rows(sid: str, date: str, turns: list[dict[str, Any]]) -> str:
    at = lme_time(date)
    return "".join(
        json.dumps({"session": sid, "role": t["role"], "text": t["content"], "time": at + i}) + "\n"
        for i, t in enumerate(turns)
        if t["content"].strip()
    )


def path(
    questions: list[dict[str, Any]],
    half: str,
    limit: int | None,
    arms: tuple[str, ...] = ARMS,
    variants: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    chosen = [q for i, q in enumerate(questions) if half == "all" or i % 2 == (half == "odd")]
    chosen = chosen[:limit]
    models = load_models()
    scored: dict[str, dict[str, list[dict[str, float]]]] = {
        name: defaultdict(list)
        for name in (*arms, *(f"{a}:{v}" for a in arms for v, _ in variants))
    }
    with tempfile.TemporaryDirectory() as scratch:
        for n, q in enumerate(chosen):
            sessions = list(
                zip(
                    q["haystack_session_ids"],
                    q["haystack_dates"],
                    q["haystack_sessions"],
                    strict=True,
                )
            )
            evidence = [
                t["content"] for _, _, turns in sessions for t in turns if t.get("has_answer")
            ]
            if not evidence:
                continue
            now = max(lme_time(d) for _, d, _ in sessions) + timedelta(days=1).total_seconds()
            for name in arms:
                root = Path(scratch, f"{n}-{name}")
                if name == "pages":
                    pages = {slug_of(s): page_text(s, d, t) for s, d, t in sessions}
                    settings, index, _ = build_pages(root, pages, models)
                    captured = 0
                else:
                    settings, index, captured = imported(
                        root,
                        sessions,
                        models,
                        episodes=name != "imported",
                        learn=name != "episodes_only",
                    )
                _, [card], [top5] = ask(settings, index, [q["question"]], now)
                for variant, toml in variants:
                    tried = with_v3(settings.workspace, toml)
                    with served_log(tried) as log:
                        other = (
                            Injector(tried, index, clock=partial(float, now), sessions=log)
                            .assemble(q["question"])
                            .memory
                        )
                    row = {"evidence_in_card": turn_share(other, evidence)}
                    if len(str(q["answer"])) <= SHORT_ANSWER:
                        row["answer_in_card"] = float(
                            str(q["answer"]).casefold() in other.casefold()
                        )
                    for group in groups_of(q["question_type"]):
                        scored[f"{name}:{variant}"][group].append(row)
                index.store.close()
                share = turn_share(card, evidence)
                row = {"evidence_in_card": share, "turn_in_card": float(share >= KEEP)}
                answer = str(q["answer"])
                if len(answer) <= SHORT_ANSWER:
                    row["answer_in_card"] = float(answer.casefold() in card.casefold())
                    row["search5_answer_in_card"] = float(answer.casefold() in top5.casefold())
                    stale, newest = changed_evidence(sessions)
                    if q["question_type"] == "knowledge-update" and stale:
                        missing = not row["answer_in_card"]
                        row["stale_without_answer"] = float(
                            turn_share(card, stale) >= KEEP and missing
                        )
                        row["stale_only"] = float(
                            turn_share(card, stale) >= KEEP
                            and missing
                            and turn_share(card, newest) < KEEP
                        )
                        pages_part = EPISODE_ELEMENT.sub("", card)
                        row["stale_as_current"] = float(
                            turn_share(pages_part, stale) >= KEEP
                            and missing
                            and turn_share(pages_part, newest) < KEEP
                        )
                if name != "pages":
                    row["captured"] = float(captured)
                for group in groups_of(q["question_type"]):
                    scored[name][group].append(row)
            print(f"question {n + 1}/{len(chosen)} {q['question_type']}", file=sys.stderr)
    return {
        "half": half,
        **{
            name: {g: means(rows) for g, rows in sorted(groups.items())}
            for name, groups in scored.items()
        },
    }


def changed_evidence(
    sessions: list[tuple[str, str, list[dict[str, Any]]]],
) -> tuple[list[str], list[str]]:
    """(the evidence turns said before the last session holding evidence, those
    of that last session): on a knowledge-update question, what was true before
    the value changed and what says it now; both empty when it never changed."""
    held = [(lme_time(d), t) for _, d, turns in sessions for t in turns if t.get("has_answer")]
    if len({at for at, _ in held}) < 2:
        return [], []
    last = max(at for at, _ in held)
    return (
        [t["content"] for at, t in held if at < last],
        [t["content"] for at, t in held if at == last],
    )


def groups_of(question_type: str) -> tuple[str, ...]:
    """Every question, its type, and `user-said` for the questions whose evidence
    is the person's own words (all but single-session-assistant: capture never
    reads the assistant's turns, on purpose)."""
    mine = () if question_type == "single-session-assistant" else ("user-said",)
    return ("all", question_type, *mine)


def imported(
    root: Path,
    sessions: list[tuple[str, str, list[dict[str, Any]]]],
    models: Models,
    episodes: bool = False,
    learn: bool = True,
) -> tuple[Any, Any, int]:
    """The sessions imported as chat history, captured offline and consolidated
    (without `learn`: neither, the log alone); with `episodes`, the log's
    episodes indexed beside the pages too (as `memory import` does)."""
    settings = replace(workspace(root), embed=EXTRACTOR.embed)
    export = root / "export.jsonl"
    export.write_text("".join(jsonl_rows(s, d, t) for s, d, t in sessions))
    log = open_session_log(settings.workspace)
    done = import_conversations(log, "jsonl", export)
    captured = sum(
        capture_offline(settings, log, sid, time.time())["saved"]
        for sid in (done.touched if learn else [])
    )
    log.close()
    index = open_search_index(settings.indexed_corpus(), embedder=models[0], multilingual=models[1])
    index.maintain()
    if learn:
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    if episodes:
        log = open_session_log(settings.workspace, read_only=True)
        index.maintain(episode_entries(LoggedEpisodes()(log)))
        log.close()
    return settings, index, captured


def means(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    return {k: round(statistics.fmean(r[k] for r in rows if k in r), 3) for k in keys} | {
        "n": len(rows),
        "n_answer": sum("answer_in_card" in r for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="the shared data folder")
    parser.add_argument("--half", choices=("all", "even", "odd"), default="all")
    parser.add_argument("--questions", type=int, default=None)
    parser.add_argument("--no-path", action="store_true", help="skip the import-to-card path")
    parser.add_argument("--path-only", action="store_true", help="only the import-to-card path")
    parser.add_argument("--arms", default=",".join(ARMS), help="the path's arms, comma-separated")
    parser.add_argument(
        "--card-variant",
        action="append",
        default=[],
        metavar="NAME=TOML",
        help="each arm's card asked again with these `memory.v3` settings (`;` between lines)",
    )
    parser.add_argument(
        "--rules-only", action="store_true", help="the rules without the durability judge"
    )
    parser.add_argument(
        "--labels", type=Path, default=Path(__file__).parent / "data" / "capture_labels.jsonl"
    )
    parser.add_argument("--types", default="", help="the path: only these question types")
    args = parser.parse_args()
    if args.rules_only:
        EXTRACTOR.embed = EXTRACTOR.judge = None
    questions = lme(args.data)
    if args.types:  # halves are taken within the chosen types
        questions = [q for q in questions if q["question_type"] in args.types.split(",")]
    if args.path_only:
        variants = tuple(named_toml(v, "memory.v3", "--card-variant") for v in args.card_variant)
        arms = tuple(a for a in args.arms.split(",") if a)
        print(json.dumps(path(questions, args.half, args.questions, arms, variants), indent=1))
        return
    report: dict[str, Any] = {
        "recall": {"longmemeval": lme_recall(questions), "locomo": locomo_recall(args.data)},
        "precision": precision(args.labels) if args.labels.exists() else None,
        "cost": cost(questions),
    }
    print(json.dumps(report, indent=1), flush=True)
    if not args.no_path:
        report["path"] = path(questions, args.half, args.questions)
        print(json.dumps(report["path"], indent=1))


if __name__ == "__main__":
    main()
