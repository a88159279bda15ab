"""Promotion: what a turn costs, and what it would promote from real conversations.

    python bench/promotion.py ../shared/data [--sizes 10000,100000] [--turns 300]

1. **Turn cost** (`promote_turn`, the call each direct user turn makes after it
   is logged) over a conversation log of each size: p50/p95 for a turn with no
   candidate ("what's on my calendar?"), and for one whose candidate runs the
   evidence search ("I prefer TypeScript", 0.5% of logged messages mention
   TypeScript, so the search reads and re-detects hundreds of them). The log is
   real SQLite + FTS5 in a temp workspace.
2. **Card cost**: `Injector.assemble` p50 with and without the conversation
   log wired in (profile block read every turn, recall only on recall-style
   turns), alternated in one process over the same pages and turns, with the
   ratio.
3. **Precision on real conversations**: every user turn of LoCoMo (both
   speakers are users; each session a root session) and of LongMemEval's
   oracle haystacks (user turns), in order, through the real log and
   `promote_turn`, one workspace per conversation (LoCoMo) or for all of
   LongMemEval: how many candidates, detections and promotions, every
   detection and promotion listed so a wrong one is visible.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from injector import Injector
from service.settings_loader import build_settings
from substrate import Settings, init_workspace
from substrate.index import open_search_index
from substrate.promotion import detect, extract_candidates, promote_turn
from substrate.promotion.promote import evidence_for
from substrate.sessions import NewMessage, SessionLog, open_session_log

FILLER = (
    "can you check the deploy logs for the staging cluster",
    "what time is the standup tomorrow",
    "the build failed again on the linux runner",
    "let's rename the config flag to something clearer",
    "I wrote the migration but the tests are slow",
    "please look at the flaky integration test",
)


def workspace(base: Path, name: str) -> Settings:
    root = base / name
    init_workspace(root)
    cfg = root / "config.toml"
    cfg.write_text(
        cfg.read_text().replace(
            "[memory.substrate]\n", "[memory.substrate]\nscanner_detector = false\n", 1
        )
    )
    return build_settings(root)


def fill(log: SessionLog, size: int, rng: random.Random) -> None:
    per_session = 20
    for s in range(size // per_session):
        batch = []
        for _ in range(per_session):
            text = rng.choice(FILLER)
            if rng.random() < 0.005:
                text = rng.choice(
                    ("I prefer TypeScript", "TypeScript types are strict", "Default to TypeScript")
                )
            batch.append(NewMessage("user", text, True))
        log.append(f"old-{s}", batch, 1_600_000_000.0 + s)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def turn_cost(base: Path, sizes: list[int], turns: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for size in sizes:
        settings = workspace(base, f"cost-{size}")
        log = open_session_log(settings.workspace)
        fill(log, size, random.Random(size))
        log.append("now", [NewMessage("user", "hello", True)], 1_700_000_000.0)
        figures: dict[str, Any] = {"messages": log.count()}
        for name, text in (
            ("no_candidate", "what's on my calendar?"),
            ("evidence_search", "I prefer TypeScript"),
        ):
            times = []
            for _ in range(turns):
                started = time.perf_counter()
                promote_turn(settings, log, "now", text, 1_700_000_000.0)
                times.append((time.perf_counter() - started) * 1000)
            figures[name] = {
                "p50_ms": round(pct(times, 0.5), 3),
                "p95_ms": round(pct(times, 0.95), 3),
            }
        found = detect("I prefer TypeScript")
        assert found is not None
        figures["evidence_sessions"] = len(evidence_for(log, found, "now"))
        out[str(size)] = figures
        log.close()
        print(f"turn cost at {size}: {figures}", file=sys.stderr)
    return out


def card_cost(base: Path, turns: int) -> dict[str, Any]:
    settings = workspace(base, "card")
    for i in range(60):
        (settings.workspace.concepts_dir / f"page-{i}.md").write_text(
            f"# Topic {i}\n{FILLER[i % len(FILLER)]} and item {i} of the list.\n"
        )
    profile = settings.workspace.memory_dir / "profile"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "USER.md").write_text(
        "# User preferences\n\n- Prefer TypeScript.\n- Prefer concise replies.\n"
    )
    log = open_session_log(settings.workspace)
    fill(log, 10000, random.Random(1))
    search = open_search_index(settings)
    search.maintain()
    plain = Injector(settings, search)
    wired = Injector(settings, search, sessions=log)
    messages = [f"what about item {i} and the build?" for i in range(turns)]
    for inj in (plain, wired):
        inj.warm()
    times: dict[str, list[float]] = {"without_log": [], "with_log": []}
    for message in messages:
        for name, inj in (("without_log", plain), ("with_log", wired)):
            started = time.perf_counter()
            inj.assemble(message)
            times[name].append((time.perf_counter() - started) * 1000)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    search.store.close()
    log.close()
    return {k: round(v, 3) for k, v in p50.items()} | {
        "ratio": round(p50["with_log"] / p50["without_log"], 3)
    }


def replay(settings: Settings, sessions: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """Every user turn, in order, logged then promoted; what came of it."""
    log = open_session_log(settings.workspace)
    candidates = detections = 0
    detected: list[str] = []
    promoted: list[dict[str, Any]] = []
    clock = 1_600_000_000.0
    for sid, texts in sessions:
        for text in texts:
            clock += 1
            log.append(sid, [NewMessage("user", text, True)], clock)
            extraction = extract_candidates(text)
            candidates += len(extraction.candidates)
            for c in extraction.candidates:
                found = detect(c.text)
                if found is not None:
                    detections += 1
                    detected.append(f"{c.text!r} -> {found.content!r}")
            for outcome in promote_turn(settings, log, sid, text, clock):
                if outcome.action not in ("needs-evidence", "unchanged"):
                    promoted.append(outcome.as_json())
    log.close()
    return {
        "user_turns": sum(len(t) for _, t in sessions),
        "candidates": candidates,
        "detections": detections,
        "detected": detected,
        "promotions": promoted,
    }


def locomo_sessions(data: Path) -> list[list[tuple[str, list[str]]]]:
    out = []
    for ci, sample in enumerate(json.loads((data / "locomo10.json").read_text())):
        conv = sample["conversation"]
        sessions = []
        n = 1
        while f"session_{n}" in conv:
            sessions.append(
                (f"c{ci}-s{n}", [t["text"] for t in conv[f"session_{n}"] if t.get("text")])
            )
            n += 1
        out.append(sessions)
    return out


def longmemeval_sessions(data: Path) -> list[tuple[str, list[str]]]:
    with gzip.open(
        data / "longmemeval" / "longmemeval_oracle.json.gz", "rt", encoding="utf-8"
    ) as f:
        everything = json.load(f)
    seen: dict[str, tuple[str, list[str]]] = {}
    for q in everything:
        for sid, date, turns in zip(
            q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
        ):
            seen.setdefault(sid, (date, [t["content"] for t in turns if t["role"] == "user"]))
    return [(sid, texts) for sid, (_, texts) in sorted(seen.items(), key=lambda kv: kv[1][0])]


def precision(base: Path, data: Path) -> dict[str, Any]:
    locomo = [
        replay(workspace(base, f"locomo-{i}"), s) for i, s in enumerate(locomo_sessions(data))
    ]
    merged = {
        "user_turns": sum(r["user_turns"] for r in locomo),
        "candidates": sum(r["candidates"] for r in locomo),
        "detections": sum(r["detections"] for r in locomo),
        "detected": [d for r in locomo for d in r["detected"]],
        "promotions": [p for r in locomo for p in r["promotions"]],
    }
    return {
        "locomo": merged,
        "longmemeval_oracle": replay(workspace(base, "lme"), longmemeval_sessions(data)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "data", type=Path, help="the shared data folder (locomo10.json, longmemeval/)"
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--skip-card", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        report: dict[str, Any] = {
            "turn_cost": turn_cost(base, [int(s) for s in args.sizes.split(",")], args.turns)
        }
        if not args.skip_card:
            report["card_p50_ms"] = card_cost(base, args.turns)
        report["precision"] = precision(base, args.data)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
