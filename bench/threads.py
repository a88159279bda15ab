"""Embedding rate by model thread count: why the defaults are what they are.

    python bench/threads.py [--settings 1:1,2:1,2:2,4:4] [--seconds 4]

Each setting is `MINILM:USE` threads. For each, in one process, printed as
JSON lines:

- `docs_per_s`: 200 short texts embedded as documents, per model alone;
- `queries_per_s`: one query at a time, per model alone;
- `pair_queries_per_s`: both models answering queries at once on two threads
  (what the service does when turns overlap);
- `baseline_ratio`: each figure over the first setting's, the same run.

Both runtimes spin their worker threads while waiting, so a setting with more
threads than `usable_cpus` does not share the cores, it collapses. The
machine's `usable_cpus` is printed first.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

from substrate.config import usable_cpus
from substrate.index import BUNDLED_MODEL, Embedder, FastembedEmbedder, UseEmbedder

TEXTS = [f"Note {i}: the weather in a small town, and a dog called Rex." for i in range(200)]


def rate(embed: Embedder, queries: bool, seconds: float) -> float:
    """Texts per second over at least `seconds`."""
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        if queries:
            embed.embed_query(TEXTS[done % len(TEXTS)])
            done += 1
        else:
            embed.embed_documents(TEXTS)
            done += len(TEXTS)
    return done / (time.perf_counter() - start)


def pair(models: dict[str, Embedder], seconds: float) -> dict[str, float]:
    rates: dict[str, float] = {}

    def run(name: str) -> None:
        rates[name] = rate(models[name], True, seconds)

    threads = [threading.Thread(target=run, args=(name,)) for name in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return rates


def measure(minilm: int, use: int, cache: Path, seconds: float) -> dict[str, dict[str, float]]:
    models: dict[str, Embedder] = {
        "minilm": FastembedEmbedder(BUNDLED_MODEL, cache, threads=minilm),
        "use": UseEmbedder(cache, threads=use),
    }
    for model in models.values():
        model.embed_query("warm up")
    return {
        "docs_per_s": {n: rate(m, False, seconds) for n, m in models.items()},
        "queries_per_s": {n: rate(m, True, seconds) for n, m in models.items()},
        "pair_queries_per_s": pair(models, seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", default="1:1,2:1,2:2,4:4")
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    print(json.dumps({"usable_cpus": usable_cpus()}))
    baseline: dict[str, dict[str, float]] | None = None
    with tempfile.TemporaryDirectory() as cache:
        for setting in args.settings.split(","):
            minilm, use = (int(n) for n in setting.split(":"))
            figures = measure(minilm, use, Path(cache), args.seconds)
            baseline = baseline or figures
            ratios = {
                k: {n: round(v / baseline[k][n], 2) for n, v in per.items()}
                for k, per in figures.items()
            }
            rounded = {k: {n: round(v, 1) for n, v in per.items()} for k, per in figures.items()}
            print(json.dumps({"threads": setting, **rounded, "baseline_ratio": ratios}))


if __name__ == "__main__":
    main()
