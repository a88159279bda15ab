"""Indexing throughput, overhead over the model, no-op maintain, and search latency.

    python bench/index.py [--sizes 1000,10000] [--queries 200]

For each corpus size: generate pages (frontmatter + `--words` words, default 60-160, most pages
one chunk), run `maintain` from empty with the real model, and print JSON:
pages/s, chunks/s, the ratio of total indexing time to the time spent inside
the embedding model for the same chunks (measured in the same run by a
timing wrapper: 1.0 would mean zero overhead), a no-op `maintain`, search
latency p50/p95 over `--queries` queries including query embedding, and
peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import WORDS, TimedEmbedder, word_range, write_pages

from substrate import Settings, init_workspace, open_workspace, parse_config
from substrate.embedding import FastembedEmbedder
from substrate.search_index import SearchIndex
from substrate.vector_store import EdgeStore


def run_size(
    n: int, queries: int, model: FastembedEmbedder, root: Path, words: tuple[int, int]
) -> dict[str, Any]:
    rng = random.Random(n)
    init_workspace(root)
    ws = open_workspace(root)
    write_pages(ws.concepts_dir, n, rng, words)
    timed = TimedEmbedder(model)
    settings = Settings(ws, parse_config("[memory.v3]\nlive = true\n"))
    index = SearchIndex(settings, timed, EdgeStore(ws.state_dir / "qdrant"))
    started = time.perf_counter()
    report = index.maintain()
    total = time.perf_counter() - started
    noop = []
    for _ in range(3):
        again = index.maintain()
        noop.append(again.seconds)
        assert again.embedded == 0
    latencies = []
    for _ in range(queries):
        query = " ".join(rng.sample(WORDS, 3))
        started = time.perf_counter()
        index.search(query, k=10)
        latencies.append((time.perf_counter() - started) * 1000)
    index.store.close()
    latencies.sort()
    return {
        "pages": n,
        "words_per_page": list(words),
        "chunks": report.chunks,
        "index_seconds": round(total, 2),
        "pages_per_s": round(n / total, 1),
        "chunks_per_s": round(report.chunks / total, 1),
        "model_seconds": round(timed.seconds, 2),
        "total_over_model": round(total / timed.seconds, 3),
        "noop_maintain_s_median": round(statistics.median(noop), 3),
        "noop_embedded": 0,
        "search_ms_p50": round(latencies[len(latencies) // 2], 2),
        "search_ms_p95": round(latencies[int(len(latencies) * 0.95) - 1], 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--words", type=word_range, default=(60, 160), help="MIN,MAX per page")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        model = FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tmp) / "cache")
        model.embed_query("warm up")
        for size in (int(s) for s in args.sizes.split(",")):
            results.append(run_size(size, args.queries, model, Path(tmp) / f"ws{size}", args.words))
            print(json.dumps(results[-1]), file=sys.stderr)
    print(json.dumps({"model": model.identity, "results": results}, indent=1))


if __name__ == "__main__":
    main()
