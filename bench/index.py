"""Indexing throughput, overhead over the model, no-op maintain, and search latency.

    python bench/index.py [--sizes 1000,10000] [--queries 200] [--signals both|en|ml]

For each corpus size and each signal set (`en`: BM25 + the English model alone,
as before the multilingual signal; `ml`: plus the multilingual `dense_ml`
vector, the default; `both` runs the two in the same process): generate pages (frontmatter + `--words` words, default 60-160, most pages
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
from substrate.config import usable_cpus
from substrate.index import EdgeStore, Embedder, FastembedEmbedder, SearchIndex, UseEmbedder


def run_size(
    n: int,
    queries: int,
    models: tuple[FastembedEmbedder, Embedder | None],
    root: Path,
    words: tuple[int, int],
    mode: str = "default",
) -> dict[str, Any]:
    rng = random.Random(n)
    init_workspace(root)
    ws = open_workspace(root)
    write_pages(ws.concepts_dir, n, rng, words)
    timed = TimedEmbedder(models[0])
    second = TimedEmbedder(models[1]) if models[1] else None
    if second is not None and mode == "before":
        second.frozen = True  # USE on one thread throughout, as before issue 25
    concurrent = "true" if mode == "concurrent" else "false"
    compute = f"[memory.substrate.compute]\nconcurrent = {concurrent}\n"
    settings = Settings(ws, parse_config("[memory.v3]\nlive = true\n" + compute))
    index = SearchIndex(settings, timed, EdgeStore(ws.state_dir / "qdrant"), second)
    started, cpu = time.perf_counter(), time.process_time()
    report = index.maintain()
    total = time.perf_counter() - started
    cpu_share = (time.process_time() - cpu) / (total * usable_cpus())
    noop = []
    for _ in range(3):
        again = index.maintain()
        noop.append(again.seconds)
        assert again.embedded == 0
    latencies, ranked = [], []
    for _ in range(queries):
        query = " ".join(rng.sample(WORDS, 3))
        started = time.perf_counter()
        hits = index.search(query, k=10)
        latencies.append((time.perf_counter() - started) * 1000)
        ranked.append([h.slug for h in hits])
    index.store.close()
    latencies.sort()
    model_seconds = timed.seconds + (second.seconds if second else 0.0)
    return {
        "signals": "ml" if second else "en",
        "compute": mode,
        "cpu_busy_share": round(cpu_share, 3),
        "minilm_busy_share": round(timed.seconds / total, 3),
        "use_busy_share": round(second.seconds / total, 3) if second else None,
        "rankings": ranked,
        "pages": n,
        "words_per_page": list(words),
        "chunks": report.chunks,
        "index_seconds": round(total, 2),
        "pages_per_s": round(n / total, 1),
        "chunks_per_s": round(report.chunks / total, 1),
        "model_seconds": round(model_seconds, 2),
        "multilingual_model_seconds": round(second.seconds, 2) if second else None,
        "total_over_model": round(total / model_seconds, 3),
        "noop_maintain_s_median": round(statistics.median(noop), 3),
        "noop_embedded": 0,
        "search_ms_p50": round(latencies[len(latencies) // 2], 2),
        "search_ms_p95": round(latencies[int(len(latencies) * 0.95) - 1], 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def compare_modes(results: list[dict[str, Any]]) -> None:
    """Each mode's speed over `before` for each size, and whether every query
    ranked the same pages (the vectors are the models' own either way)."""
    for size in sorted({r["pages"] for r in results}):
        runs = {r["compute"]: r for r in results if r["pages"] == size and r["signals"] == "ml"}
        base = runs.get("before")
        for run in runs.values():
            if base is None or run is base:
                continue
            same = sum(a == b for a, b in zip(base["rankings"], run["rankings"], strict=True))
            run["speedup_over_before"] = round(base["index_seconds"] / run["index_seconds"], 3)
            run["same_rankings_as_before"] = f"{same}/{len(run['rankings'])}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--words", type=word_range, default=(60, 160), help="MIN,MAX per page")
    parser.add_argument("--signals", choices=["both", "en", "ml"], default="both")
    parser.add_argument(
        "--compute",
        default="default",
        help="bulk embedding modes to run, comma-separated, each in the same process: "
        "`before` (USE on one thread throughout, as before issue 25), `default` (USE on "
        "every core whenever it runs alone), `concurrent` (the two models side by side)",
    )
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        model = FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tmp) / "cache")
        model.embed_query("warm up")
        multilingual = UseEmbedder()
        multilingual.embed_query("warm up")
        sets = {"en": None, "ml": multilingual}
        chosen = ["en", "ml"] if args.signals == "both" else [args.signals]
        modes = args.compute.split(",")
        for size in (int(s) for s in args.sizes.split(",")):
            for name in chosen:
                for mode in modes if name == "ml" else ["default"]:
                    root = Path(tmp) / f"ws{size}-{name}-{mode}"
                    run = run_size(size, args.queries, (model, sets[name]), root, args.words, mode)
                    results.append(run)
                    print(
                        json.dumps({k: v for k, v in run.items() if k != "rankings"}),
                        file=sys.stderr,
                    )
        compare_modes(results)
        for r in results:
            r.pop("rankings")
        for size in {r["pages"] for r in results}:
            pair = {r["signals"]: r for r in results if r["pages"] == size}
            if len(pair) == 2:
                # From the unrounded times: pages/s is printed to one decimal.
                ratio = pair["en"]["index_seconds"] / pair["ml"]["index_seconds"]
                print(f"{size} pages: ml/en indexing throughput {ratio:.3f}", file=sys.stderr)
    identities = {"model": model.identity, "multilingual": multilingual.identity}
    print(json.dumps(identities | {"results": results}, indent=1))


if __name__ == "__main__":
    main()
