"""Search and the card at scale: 2,000, 10,000 and 100,000 pages in one run.

    python bench/scale.py [--sizes 2000,10000,100000] [--queries 200] [--pool 2000]
        [--quantization int8|off|off,int8] [--serve]

For each size: generate notes (`common.write_pages`, 60-160 words), index
them with `maintain`, then time `search` (k=10) and `Injector.assemble` (the
v3 card) over `--queries` messages, **query embedding included** (the real
models embed every query). Printed as JSON: search and card p50/p95 in ms, the
ratio of each median to the smallest size's, indexing seconds, resident
memory (resident, after the models loaded) and disk per 1,000 pages.

**Precomputed vectors for the index part.** Embedding 100,000 pages with the
real models takes most of an hour on 2 cores, and what is measured here is
the index, not the models. So documents are embedded by `PooledEmbedder`: the
first `--pool` distinct texts go through the real model, every later text
gets one of those vectors (chosen by its hash) plus a little noise of its
own, normalised: real vectors, realistic neighbourhoods, and a corpus of any
size. BM25 is computed from every page's own text. Queries are embedded by
the real models. Pages with the same words as a query are in every size, so
each search has real lexical and dense competition.

**The approximate index.** A size whose store passes the graph's threshold
(`substrate.index.approximate.APPROX_FROM_POINTS`) has its HNSW graph built
as the service builds it (the points copied aside, the graph built by a
child process, the swap): `graph.build_s`, then search and the card timed
again over the same queries (`graph.search_ms`, `graph.card_ms`; the ratio
is to the smallest size's exact figures), and `graph.same_top_hit`: the
share of queries whose first hit is the exact scan's.

`--serve`: for the largest size, `memory serve` is started on the indexed
workspace (the same models, so nothing is re-embedded) and `first_card_s` is
the time from the process's start to its first answered card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from common import WORDS, Wrapped, write_pages

from injector import Injector
from service.discovery import running_service
from substrate import Settings, init_workspace, open_workspace, parse_config
from substrate.config import set_substrate_key
from substrate.index import EdgeStore, Embedder, FastembedEmbedder, SearchIndex, UseEmbedder
from substrate.index.approximate import build_in_child

NOISE = 0.15  # the share of a pooled vector that is a text's own noise


class PooledEmbedder(Wrapped):
    """The real model for the first `pool` distinct documents; a hashed pick of
    those vectors, perturbed, for the rest (module doc). Queries: the model."""

    def __init__(self, inner: Embedder, pool: int) -> None:
        super().__init__(inner)
        self.pool = pool
        self.vectors: list[np.ndarray] = []

    def embed_documents(self, texts: Sequence[str]) -> Any:
        fresh = list(texts[: max(0, self.pool - len(self.vectors))])
        out: list[np.ndarray] = []
        if fresh:
            made = np.asarray(self.inner.embed_documents(fresh), dtype=np.float32)
            self.vectors.extend(made)
            out.extend(made)
        for text in texts[len(fresh) :]:
            seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")
            base = self.vectors[seed % len(self.vectors)]
            noise = np.random.default_rng(seed).standard_normal(base.shape[0]).astype(np.float32)
            mixed = base + NOISE * noise / np.linalg.norm(noise)
            out.append(mixed / np.linalg.norm(mixed))
        return np.stack(out)

    def set_threads(self, threads: int) -> None:
        setter = getattr(self.inner, "set_threads", None)
        if setter is not None:
            setter(threads)


def messages(rng: random.Random, n: int) -> list[str]:
    """Turns mixing topic words, as `bench/card.py` asks them."""
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + "?" for _ in range(n)]


def rss_kb() -> int:
    """Resident memory now (not the peak: the models load once, before the first size)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in root.rglob("*") if p.is_file())


def run_size(
    n: int,
    queries: list[str],
    models: tuple[PooledEmbedder, PooledEmbedder],
    quantization: str = "int8",
    serve: bool = False,
) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix=f"scale-{n}-"))
    try:
        root = scratch / "ws"
        init_workspace(root)
        ws = open_workspace(root)
        write_pages(ws.concepts_dir, n, random.Random(n))
        toml = (
            f'[memory.v3]\nlive = true\n[memory.substrate]\ndense_quantization = "{quantization}"\n'
        )
        settings = Settings(ws, parse_config(toml))
        rss_before = rss_kb()
        store = EdgeStore(ws.state_dir / "qdrant", quantization)
        index = SearchIndex(settings, models[0], store, models[1])
        started = time.perf_counter()
        index.maintain()
        indexing = time.perf_counter() - started
        index.store.optimize()
        injector = Injector(settings, index, clock=time.time)
        injector.warm()
        search_ms, card_ms, tops = timed(index, injector, queries)
        rss = rss_kb()
        disk = folder_bytes(ws.state_dir)
        graph = with_graph(index, injector, queries, tops) if store.wants_approximate() else None
        injector.close()
        served = first_card(root, quantization) if serve else None
        return {
            "pages": n,
            "dense_quantization": quantization,
            "indexing_s": round(indexing, 1),
            "search_ms": percentiles(search_ms),
            "card_ms": percentiles(card_ms),
            "index_disk_mb_per_1000_pages": round(disk / 1e6 / (n / 1000), 2),
            "rss_growth_mb_per_1000_pages": round(max(0, rss - rss_before) / 1024 / (n / 1000), 2),
            "graph": graph,
            "first_card_s": served,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def timed(
    index: SearchIndex, injector: Injector, queries: list[str]
) -> tuple[list[float], list[float], list[str]]:
    """Search and card milliseconds per query, and each search's first hit."""
    search_ms, card_ms, tops = [], [], []
    for i, q in enumerate(queries):
        started = time.perf_counter()
        hits = index.search(q, 10)
        search_ms.append((time.perf_counter() - started) * 1000)
        tops.append(hits[0].slug if hits else "")
        started = time.perf_counter()
        injector.assemble(q, f"c{i % 8}")
        card_ms.append((time.perf_counter() - started) * 1000)
    return search_ms, card_ms, tops


def with_graph(
    index: SearchIndex, injector: Injector, queries: list[str], exact: list[str]
) -> dict[str, Any]:
    """The graph built as the service builds it, then the same queries again."""
    store = index.store
    assert isinstance(store, EdgeStore)
    started = time.perf_counter()
    fresh = store.begin_approximate()
    copied = time.perf_counter() - started
    build_in_child(fresh)
    store.finish_approximate(fresh)
    built = time.perf_counter() - started
    search_ms, card_ms, tops = timed(index, injector, queries)
    same = sum(a == b for a, b in zip(tops, exact, strict=True)) / len(queries)
    return {
        "copy_s": round(copied, 1),
        "build_s": round(built, 1),
        "search_ms": percentiles(search_ms),
        "card_ms": percentiles(card_ms),
        "same_top_hit": round(same, 3),
    }


def first_card(root: Path, quantization: str) -> float | None:
    """Seconds from `memory serve` starting on the indexed workspace to its first
    answered card."""
    ws = open_workspace(root)
    set_substrate_key(ws.config_path, "dense_quantization", quantization)
    memory = str(Path(sys.executable).parent / "memory")
    started = time.perf_counter()
    proc = subprocess.Popen([memory, "serve", "--workspace", str(root), "--port", "0"])
    try:
        while time.perf_counter() - started < 600 and proc.poll() is None:
            info = running_service(ws)
            if info is not None:
                try:
                    answer = httpx.post(
                        info.url + "/v1/memory/card", json={"message": "tea?"}, timeout=600
                    )
                except httpx.HTTPError:
                    answer = None
                if answer is not None and answer.status_code == 200:
                    return round(time.perf_counter() - started, 1)
            time.sleep(0.1)
        return None
    finally:
        proc.terminate()
        proc.wait(timeout=300)


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pool", type=int, default=2000)
    parser.add_argument(
        "--serve", action="store_true", help="time a service's first card on the largest size"
    )
    parser.add_argument(
        "--quantization",
        default="int8",
        help="int8 (the default), off, or both (off,int8): each size run with each, "
        "in this process",
    )
    args = parser.parse_args()
    cache = Path(tempfile.gettempdir()) / "bench-models"
    models = (
        PooledEmbedder(FastembedEmbedder("all-MiniLM-L6-v2-int8", cache), args.pool),
        PooledEmbedder(UseEmbedder(), args.pool),
    )
    queries = messages(random.Random(5), args.queries)
    run_size(200, queries[:5], models)  # models and arenas loaded before any size counts

    rows = []
    sizes = [int(s) for s in args.sizes.split(",")]
    for n in sizes:
        for quantization in args.quantization.split(","):
            rows.append(run_size(n, queries, models, quantization, args.serve and n == sizes[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    for row in rows:
        base = next(r for r in rows if r["dense_quantization"] == row["dense_quantization"])
        for key in ("search_ms", "card_ms"):
            row[key]["p50_ratio_to_smallest"] = round(row[key]["p50"] / base[key]["p50"], 2)
            if row["graph"] is not None:
                graph = row["graph"][key]
                graph["p50_ratio_to_smallest"] = round(graph["p50"] / base[key]["p50"], 2)
    print(json.dumps({"pool": args.pool, "noise": NOISE, "sizes": rows}, indent=1))


if __name__ == "__main__":
    main()
