"""What episodes cost: card latency with a conversation log beside the pages,
the embedding time per 1,000 turns and the index's growth in points.

    python bench/episodes.py --workspace DIR [--sessions 1000] [--turns 10]
        [--queries 200] [--data ../shared/data]

DIR is an indexed workspace (e.g. `python bench/ingest.py --pages 2000 --keep
DIR`); it is copied twice, never changed. In one process: `--sessions`
sessions of `--turns` turns each (LoCoMo's dialog turns, both speakers) are
logged into one copy and indexed by a full maintain; then the card's p50/p95
over the same queries on both copies, asked in turn (each query on the copy
without sessions, then on the one with them). Prints both, their ratio, the
seconds per 1,000 turns and the collections' points.
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


def cards(memories: list[Any], queries: list[str]) -> list[dict[str, float]]:
    """Each memory's card p50/p95 over the same queries, asked in turn (one query
    of each before the next), so a noisy machine slows both alike."""
    took: list[list[float]] = [[] for _ in memories]
    for memory in memories:
        memory.card(queries[0])  # warm
    for q in queries:
        for i, memory in enumerate(memories):
            started = time.perf_counter()
            memory.card(q)
            took[i].append((time.perf_counter() - started) * 1000)
    out = []
    for times in took:
        times.sort()
        out.append(
            {
                "p50_ms": round(statistics.median(times), 1),
                "p95_ms": round(times[int(len(times) * 0.95) - 1], 1),
            }
        )
    return out


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
        plain, root = Path(scratch, "plain"), Path(scratch, "ws")
        shutil.copytree(args.workspace, plain)
        shutil.copytree(args.workspace, root)
        without = Memory(build_settings(plain), compact=True)
        without.maintain()
        memory = Memory(build_settings(root), compact=True)
        memory.maintain()
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
        timed = cards([without, memory], queries)
        before = {"card": timed[0], "points": without.index.store.count()}
        after = {"card": timed[1], "points": memory.index.store.count()}
        memory.close()
        without.close()
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
