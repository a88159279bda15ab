"""End-to-end `memory ingest` of generated pages from a staging folder.

    python bench/ingest.py [--pages 10000] [--words 60,160] [--keep DIR]

Generates pages (frontmatter with `origin_date`, `--words` words (default 60-160), a couple of
links to other staged pages), then runs what `memory ingest DIR --source
bench` runs: the batch writer, then the index follow-up (chunk, embed with
the real model, upsert, BM25 stats). Prints JSON: pages/s end to end, the
seconds in each phase, the share of time spent inside the embedding model
(measured by a timing wrapper in the same run) and its complement, the
non-model overhead (target <= 15%), a rerun of the same ingest (everything
`skipped`, nothing embedded), and peak RSS. `--keep DIR` leaves the indexed
workspace at DIR (for `bench/card.py --workspace DIR`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import WORDS, TimedEmbedder, word_range

from substrate import Settings, init_workspace, open_workspace, parse_config
from substrate.index import EdgeStore, FastembedEmbedder, SearchIndex, UseEmbedder


def ingest_package() -> Any:
    """The `ingest` package: this script's own name shadows it from sys.path[0]."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    return importlib.import_module("ingest")


def stage_pages(root: Path, n: int, rng: random.Random, words: tuple[int, int]) -> None:
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words)))
        links = sorted({f"notes/page-{rng.randrange(n):05d}" for _ in range(2)})
        path = root / f"notes/page-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ntitle: Note {i} {rng.choice(WORDS)}\n"
            f"origin_date: 20{rng.randint(10, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}\n"
            f"links: [{', '.join(links)}]\n---\n{body}\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--words", type=word_range, default=(60, 160), help="MIN,MAX per page")
    parser.add_argument("--keep", type=Path, help="copy the indexed workspace here afterwards")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp) / "stage"
        stage_pages(stage, args.pages, random.Random(args.pages), args.words)
        init_workspace(Path(tmp) / "ws")
        ws = open_workspace(Path(tmp) / "ws")
        settings = Settings(ws, parse_config("[memory.v3]\nlive = true\n"))
        model = FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tmp) / "cache")
        model.embed_query("warm up")
        timed = TimedEmbedder(model)
        multilingual = UseEmbedder()
        multilingual.embed_query("warm up")
        timed_ml = TimedEmbedder(multilingual)
        index = SearchIndex(settings, timed, EdgeStore(ws.state_dir / "qdrant"), timed_ml)
        ingest = ingest_package()
        options = ingest.IngestOptions(source="bench")

        started = time.perf_counter()
        report = ingest.run(settings, ingest.DirectorySource(stage), options)
        written_s = time.perf_counter() - started
        maintained = index.maintain()
        total = time.perf_counter() - started
        model_s = timed.seconds + timed_ml.seconds

        again_started = time.perf_counter()
        rerun = ingest.run(settings, ingest.DirectorySource(stage), options)
        rerun_index = index.maintain()
        again = time.perf_counter() - again_started
        index.store.close()
        if args.keep:
            shutil.copytree(ws.root, args.keep)
    print(
        json.dumps(
            {
                "model": model.identity,
                "pages": args.pages,
                "words_per_page": list(args.words),
                "written": report.count("written"),
                "failed": report.count("failed"),
                "chunks": maintained.chunks,
                "seconds_total": round(total, 2),
                "pages_per_s": round(args.pages / total, 1),
                "seconds_write": round(written_s, 2),
                "seconds_index": round(maintained.seconds, 2),
                "seconds_model": round(model_s, 2),
                "seconds_multilingual_model": round(timed_ml.seconds, 2),
                "model_share": round(model_s / total, 3),
                "non_model_overhead": round(1 - model_s / total, 3),
                "rerun_seconds": round(again, 2),
                "rerun_skipped": rerun.count("skipped"),
                "rerun_embedded": rerun_index.embedded,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
