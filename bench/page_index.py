"""PageIndex scan timings on a generated corpus.

    python bench/page_index.py [--pages 10000] [--repeat 3]

Generates realistic concept pages (frontmatter with aliases, tags, links and
origin dates; 200–800 words of body with wikilinks) in a temp workspace, then
prints the median of `--repeat` runs for: a full scan (no cache), a rescan
with nothing changed, and a rescan after 1% of the pages changed.

Shared machines stall unpredictably, so each figure is paired with a floor
measured in the same process, interleaved with it: a bare `os.walk` + `stat`
for the rescan, and a serial read + YAML load of every frontmatter for the
full scan. The ratios are the stable figures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from substrate import init_workspace, load_page_index, open_workspace

WORDS = [
    "search",
    "index",
    "latency",
    "budget",
    "review",
    "launch",
    "team",
    "meeting",
    "design",
    "decision",
    "customer",
    "release",
    "pipeline",
    "schema",
    "migration",
    "travel",
    "school",
    "family",
    "garden",
    "budget",
    "invoice",
    "contract",
    "renewal",
    "allergy",
    "doctor",
    "appointment",
    "running",
    "training",
    "knee",
    "coffee",
    "tea",
    "project",
    "roadmap",
    "quarter",
    "metric",
    "recall",
    "precision",
    "ranking",
    "fusion",
    "dense",
    "sparse",
    "weekend",
    "lisbon",
    "cairo",
    "porto",
    "museum",
    "aquarium",
    "birthday",
    "gift",
    "book",
    "reading",
    "piano",
    "kitchen",
    "renovation",
    "quote",
    "worktop",
    "oak",
    "contractor",
    "lease",
    "landlord",
    "boiler",
    "plan",
]


def generate(concepts: Path, n: int, rng: random.Random) -> list[Path]:
    slugs = [
        f"{rng.choice(['people', 'projects', 'places', 'notes'])}/page-{i:05d}" for i in range(n)
    ]
    paths = []
    for i, slug in enumerate(slugs):
        links = rng.sample(slugs, 3)
        body_words = [rng.choice(WORDS) for _ in range(rng.randint(200, 800))]
        for pos in rng.sample(range(len(body_words)), 4):
            body_words[pos] = f"[[{rng.choice(slugs)}]]"
        text = (
            f"---\ntitle: Page {i} {rng.choice(WORDS).title()}\naliases: [Alias {i}, P{i}]\n"
            f"tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]\nlinks: [{', '.join(links)}]\n"
            f"origin_date: 20{rng.randint(10, 26)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}\n---\n"
            f"# Page {i}\n\n" + " ".join(body_words) + "\n"
        )
        path = concepts / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def median_seconds(runs: int, setup: Callable[[], None], action: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        setup()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def walk_floor(concepts: Path) -> int:
    """The least an unchanged rescan can cost: list and stat every file."""
    count = 0
    for folder, _dirs, files in os.walk(concepts):
        for name in files:
            os.stat(os.path.join(folder, name))
            count += 1
    return count


def parse_floor(paths: list[Path]) -> int:
    """The least a full scan costs on one core: read each file and load its YAML."""
    loader = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    for path in paths:
        text = path.read_text("utf-8")
        yaml.load(text.split("---\n", 2)[1], Loader=loader)
    return len(paths)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        init_workspace(root)
        ws = open_workspace(root)
        started = time.perf_counter()
        paths = generate(ws.concepts_dir, args.pages, rng)
        print(f"generated {args.pages} pages in {time.perf_counter() - started:.1f} s")

        def drop_cache() -> None:
            ws.page_index_path.unlink(missing_ok=True)

        def touch_one_percent() -> None:
            for path in rng.sample(paths, max(1, args.pages // 100)):
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(f"\nedited {rng.random()}\n")
                st = path.stat()
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))

        def nothing() -> None:
            return None

        full = median_seconds(args.repeat, drop_cache, lambda: load_page_index(ws))
        full_floor = median_seconds(args.repeat, nothing, lambda: parse_floor(paths))
        unchanged = median_seconds(args.repeat * 3, nothing, lambda: load_page_index(ws))
        walk = median_seconds(args.repeat * 3, nothing, lambda: walk_floor(ws.concepts_dir))
        changed = median_seconds(args.repeat, touch_one_percent, lambda: load_page_index(ws))
        index = load_page_index(ws)
        print(f"pages indexed            {len(index)} ({len(index.dangling_links)} dangling links)")
        print(
            f"full scan                {full:.2f} s   (aim < 10 s); floor read+YAML, 1 core: "
            f"{full_floor:.2f} s; ratio {full / full_floor:.2f}"
        )
        print(
            f"rescan, nothing changed  {unchanged:.3f} s  (aim < 0.5 s); floor walk+stat: "
            f"{walk:.3f} s; ratio {unchanged / walk:.2f}"
        )
        print(f"rescan, 1% changed       {changed:.3f} s")


if __name__ == "__main__":
    main()
