"""What episodes cost: card latency with a conversation log beside the pages,
the embedding time per 1,000 turns and the index's growth in points.

    python bench/episodes.py --workspace DIR [--sessions 1000] [--turns 10]
        [--queries 200] [--data ../shared/data]

DIR is an indexed workspace (e.g. `python bench/ingest.py --pages 2000 --keep
DIR`); it is copied, never changed. In one process: the card's p50/p95 over
the same queries on the copy without sessions, then `--sessions` sessions of
`--turns` turns each (LoCoMo's dialog turns, both speakers) are logged and
indexed by a full maintain, then the card again. Prints both, their ratio,
the seconds per 1,000 turns and the collection's points before and after.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import project_module

from substrate.sessions import NewMessage

Memory = project_module("service.memory").Memory
build_settings = project_module("service.settings_loader").build_settings


def dialog(data: Path) -> list[str]:
    turns: list[str] = []
    for sample in json.loads((data / "locomo10.json").read_text()):
        conv = sample["conversation"]
        for key in sorted(
            k for k in conv if k.startswith("session_") and isinstance(conv[k], list)
        ):
            turns += [t["text"] for t in conv[key]]
    return turns


def cards(memory: Any, queries: list[str]) -> dict[str, float]:
    memory.card(queries[0])  # warm
    took = []
    for q in queries:
        started = time.perf_counter()
        memory.card(q)
        took.append((time.perf_counter() - started) * 1000)
    took.sort()
    return {
        "p50_ms": round(statistics.median(took), 1),
        "p95_ms": round(took[int(len(took) * 0.95) - 1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared" / "data")
    args = parser.parse_args()
    said = dialog(args.data)
    queries = [said[i * 7 % len(said)] for i in range(args.queries)]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch, "ws")
        shutil.copytree(args.workspace, root)
        memory = Memory(build_settings(root), compact=True)
        memory.maintain()
        before = {"card": cards(memory, queries), "points": memory.index.store.count()}
        log = memory.sessions
        n = 0
        for s in range(args.sessions):
            turns = [said[(n + i) % len(said)] for i in range(args.turns)]
            n += args.turns
            roles = ("user", "assistant")
            log.append(
                f"bench-{s}",
                [NewMessage(roles[i % 2], t, True) for i, t in enumerate(turns)],
                1_700_000_000.0 + s * 3600,
            )
        started = time.perf_counter()
        report = memory.maintain()
        seconds = time.perf_counter() - started
        after = {"card": cards(memory, queries), "points": memory.index.store.count()}
        memory.close()
    turns = args.sessions * args.turns
    print(
        json.dumps(
            {
                "sessions": args.sessions,
                "turns": turns,
                "episodes_embedded": report.embedded,
                "seconds_per_1000_turns": round(seconds * 1000 / turns, 2),
                "without_sessions": before,
                "with_sessions": after,
                "card_p50_ratio": round(after["card"]["p50_ms"] / before["card"]["p50_ms"], 2),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
