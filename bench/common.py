"""Helpers shared by the benchmarks: a generated-page vocabulary and embedder wrappers."""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from substrate import parse_config
from substrate.index import Embedder, Vectors

WORDS = (
    "search index latency budget review launch team meeting design decision customer release "
    "pipeline schema migration travel school family garden invoice contract renewal allergy "
    "doctor appointment running training coffee tea project roadmap quarter metric recall "
    "ranking weekend lisbon cairo porto museum aquarium birthday gift book piano kitchen quote"
).split()


class Wrapped:
    """An embedder that hands everything to `inner`: the benchmarks' wrappers
    change only what they measure or replace."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def identity(self) -> str:
        return self.inner.identity

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_queries(texts)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self.inner.count_tokens(texts)


class TimedEmbedder(Wrapped):
    """Wraps an embedder and sums the seconds spent embedding documents."""

    def __init__(self, inner: Embedder, sink: TimedEmbedder | None = None) -> None:
        """`sink` receives the counts (a sibling session timed into its parent's);
        `frozen` keeps `set_threads` from reaching the model (a baseline)."""
        super().__init__(inner)
        self.sink = sink or self
        self.frozen = False
        self.seconds = 0.0
        self.texts = 0

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.sink.seconds += time.perf_counter() - started
            self.sink.texts += len(texts)

    def with_threads(self, threads: int) -> TimedEmbedder:
        """The inner model's `threads` sibling, timed into the same counters."""
        return TimedEmbedder(self.inner.with_threads(threads), self)  # type: ignore[attr-defined]

    def set_threads(self, threads: int) -> None:
        if not self.frozen:
            self.inner.set_threads(threads)  # type: ignore[attr-defined]


def turn_messages(rng: random.Random, titles: list[str], n: int) -> list[str]:
    """Topic words, half of them naming a page by its title (the `entity` lane)."""
    out = []
    for i in range(n):
        words = " ".join(rng.sample(WORDS, rng.randint(3, 6)))
        out.append(f"what about {rng.choice(titles)} and {words}" if i % 2 else words)
    return out


def named_toml(spec: str, table: str, flag: str) -> tuple[str, str]:
    """`NAME=key = value;key = value` (a `--…-variant` option) -> (NAME, its TOML
    lines), the lines checked by the config parser under `[table]`."""
    name, sep, lines = spec.partition("=")
    if not sep or not name.strip():
        raise SystemExit(f"{flag} {spec!r}: expected NAME=TOML")
    toml = "".join(f"{line.strip()}\n" for line in lines.split(";") if line.strip())
    parse_config(f"[{table}]\n{toml}", source=f"{flag} {name.strip()}")
    return name.strip(), toml


def word_range(text: str) -> tuple[int, int]:
    """`--words 60,160` → (60, 160): the length range of generated page bodies."""
    low, high = (int(x) for x in text.split(","))
    return low, high


def write_pages(
    concepts: Path, n: int, rng: random.Random, words: tuple[int, int] = (60, 160)
) -> None:
    """n notes of `words` words under `concepts/notes/` (most fit one chunk)."""
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words)))
        path = concepts / f"notes/page-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: Note {i} {rng.choice(WORDS)}\n---\n{body}\n")


def workspace_for(args: argparse.Namespace, tmp: Path) -> Path:
    """`--workspace` when given, else a new workspace under `tmp` holding
    `--pages` generated pages of `--words` words (not indexed)."""
    from substrate import init_workspace, open_workspace

    if args.workspace:
        return Path(args.workspace)
    root = tmp / "ws"
    init_workspace(root)
    concepts = open_workspace(root).concepts_dir
    write_pages(concepts, args.pages, random.Random(args.pages), args.words)
    return root


def project_module(name: str) -> Any:
    """A module of the project's `ingest` package: `bench/ingest.py` shadows it
    from sys.path[0], so this folder is left out while importing it."""
    here = Path(__file__).resolve().parent
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved
