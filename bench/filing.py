"""What the filing benchmarks share: workspaces, the three layouts of the same
facts, asking questions of them, and the hygiene of the pages they hold.

The layouts (`bench/consolidation.py`, `bench/supersession.py`):
- `consolidated`: every fact remembered with its own date (the library call
  behind `memory remember --at`), then filed by `consolidate_all` with the
  search index and a re-index after each run (what `memory consolidate` does);
- `per_statement`: one page per fact, dated by it;
- `per_session`: one page per session holding its facts as bullets.

The naive layouts are written as page files and indexed by `maintain` (what
`memory ingest` leaves on disk, without its per-page checks).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from injector import Injector
from injector.v3.card import CardPage, render_card
from substrate import (
    Settings,
    Workspace,
    init_workspace,
    load_page_index,
    open_workspace,
    parse_config,
    remember,
)
from substrate.consolidation import consolidate_all
from substrate.index import (
    EdgeStore,
    Embedder,
    FastembedEmbedder,
    SearchIndex,
    UseEmbedder,
    Vectors,
)
from substrate.meaning.lexicon import FILLER
from substrate.meaning.words import title_problem
from substrate.pages import fact_bullets, in_words
from substrate.sessions import SessionLog, open_session_log


class Timed:
    """An embedder that sums the seconds spent in it (documents and queries)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.identity, self.dim, self.max_tokens = inner.identity, inner.dim, inner.max_tokens

    def _timed(self, call: Any, arg: Any) -> Vectors:
        started = time.perf_counter()
        try:
            out: Vectors = call(arg)
            return out
        finally:
            self.seconds += time.perf_counter() - started

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._timed(self.inner.embed_documents, texts)

    def embed_query(self, text: str) -> Vectors:
        return self._timed(self.inner.embed_query, text)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._timed(self.inner.embed_queries, texts)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self.inner.count_tokens(texts)


Models = tuple[Timed, Timed]


def load_models() -> Models:
    cache = Path(tempfile.gettempdir()) / "bench-models"
    return Timed(FastembedEmbedder("all-MiniLM-L6-v2-int8", cache)), Timed(UseEmbedder())


def fold(text: str) -> str:
    return " ".join(text.split())


def workspace(root: Path, substrate_toml: str = "", v3_toml: str = "") -> Settings:
    init_workspace(root)
    config = f"[memory.v3]\nlive = true\n{v3_toml}[memory.substrate]\n{substrate_toml}"
    (root / "config.toml").write_text(config)
    return Settings(open_workspace(root), parse_config(config))


def with_v3(ws: Workspace, v3_toml: str) -> Settings:
    """Settings over `ws` with these `memory.v3` lines (a card asked again with
    other settings: `--card-variant`)."""
    return Settings(ws, parse_config(f"[memory.v3]\nlive = true\n{v3_toml}"))


def _index(settings: Settings, models: Models) -> SearchIndex:
    root = settings.workspace.root
    return SearchIndex(settings, models[0], EdgeStore(root / ".substrate/qdrant"), models[1])


@dataclass(frozen=True)
class Fact:
    text: str
    at: datetime
    session: str  # which session (or day) it was said in


def build_consolidated(
    root: Path, facts: Sequence[Fact], models: Models, toml: str = "", v3_toml: str = ""
) -> tuple[Settings, SearchIndex, dict[str, float]]:
    """`facts` in arrival order, each remembered with its own date, then filed."""
    settings = workspace(root, toml, v3_toml)
    index = _index(settings, models)
    index.maintain()
    started = time.perf_counter()
    for fact in facts:
        remember(settings, fact.text, now=fact.at)
    remembered = time.perf_counter() - started
    model_before = models[0].seconds + models[1].seconds
    started = time.perf_counter()
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    total = time.perf_counter() - started
    model = models[0].seconds + models[1].seconds - model_before
    return (
        settings,
        index,
        {"seconds": total, "model_seconds": model, "remember_seconds": remembered},
    )


def build_pages(
    root: Path, pages: dict[str, str], models: Models, v3_toml: str = ""
) -> tuple[Settings, SearchIndex, dict[str, float]]:
    settings = workspace(root, v3_toml=v3_toml)
    started = time.perf_counter()
    for slug, text in pages.items():
        path = settings.workspace.concepts_dir / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    index = _index(settings, models)
    index.maintain()
    return settings, index, {"seconds": time.perf_counter() - started, "model_seconds": 0.0}


def per_statement(facts: Sequence[Fact]) -> dict[str, str]:
    return {
        f"statement/{i}": f"---\ntitle: Note {i}\norigin_date: {f.at:%Y-%m-%d}\n---\n{f.text}\n"
        for i, f in enumerate(facts)
    }


def per_session(facts: Sequence[Fact]) -> dict[str, str]:
    sessions: dict[str, list[Fact]] = {}
    for f in facts:
        sessions.setdefault(f.session, []).append(f)
    out = {}
    for n, (name, items) in enumerate(sessions.items()):
        first = min(f.at for f in items)
        body = "\n".join(f"- {f.text}" for f in items)
        out[f"session/{n}"] = (
            f"---\ntitle: Session {name} ({first:%d %B %Y})\norigin_date: {first:%Y-%m-%d}\n---\n{body}\n"
        )
    return out


def ask(
    settings: Settings, index: SearchIndex, questions: Sequence[str], now: float
) -> tuple[list[str], list[str], list[str]]:
    """(the top 5 search excerpts joined, the `<memory>` card, search's top 5
    rendered by the card's renderer at the card's budget) per question, each
    question a fresh conversation. The injector reads the conversation log as
    the service's does (a page leads to the conversation that last updated it)."""
    budget = settings.v3.card_budget_chars
    today = in_words(datetime.fromtimestamp(now, UTC).date())
    excerpts, cards, plain = [], [], []
    with served_log(settings) as log:
        injector = Injector(settings, index, clock=lambda: now, sessions=log)
        for q in questions:
            hits = index.search(q, 5)
            excerpts.append("\n".join(h.excerpt for h in hits))
            cards.append(injector.assemble(q).memory)
            pages = [
                CardPage(
                    h.slug, h.title, (h.fresh_at or "")[:10] or None, ("sim",), h.source, h.excerpt
                )
                for h in hits
            ]
            plain.append(render_card(pages, budget, today)[0])
    return excerpts, cards, plain


@contextmanager
def served_log(settings: Settings) -> Iterator[SessionLog]:
    """The workspace's conversation log, read as the service reads it, closed
    after (a bench asks thousands of cards over as many workspaces)."""
    log = open_session_log(settings.workspace, read_only=True)
    try:
        yield log
    finally:
        log.close()


def hygiene(settings: Settings) -> dict[str, Any]:
    """Every page's title, fact count and links: how readable the filing is."""
    index = load_page_index(settings.workspace)
    titles = [e.title for e in index.entries.values()]
    counts = []
    caught = 0
    for entry in index.entries.values():
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        counts.append(sum(1 for b in fact_bullets(text) if b.current))
        caught += counts[-1] if catch_all(entry.slug) else 0
    links = [len(e.links) for e in index.entries.values()]
    filler = [t for t in titles if filler_title(t)]
    bad = [t for t in titles if title_problem(t) is not None]
    return {
        "pages": len(titles),
        "filler_titled": len(filler),
        "filler_examples": filler[:5],
        "bad_titles": len(bad),
        "bad_title_examples": bad[:5],
        "largest_page_facts": max(counts, default=0),
        "facts_per_page_p50": statistics.median(counts) if counts else 0,
        "links_per_page": round(sum(links) / len(links), 2) if links else 0.0,
        "facts": sum(counts),
        "catch_all_facts": caught,
    }


def catch_all(slug: str) -> bool:
    """The pages for what fits nowhere: `me/about` and the dated inboxes."""
    return slug == "me/about" or slug.startswith("inbox/")


def filler_title(title: str) -> bool:
    """A title that is a greeting, interjection, pronoun, contraction or filler word."""
    first = fold(title).split(" ", 1)[0].strip(",.!?:;").lower().replace("’", "'")
    return first in FILLER


def merge_hygiene(rows: list[dict[str, Any]]) -> dict[str, Any]:
    pages = sum(r["pages"] for r in rows)
    return {
        "pages": pages,
        "filler_titled_share": round(sum(r["filler_titled"] for r in rows) / pages, 3)
        if pages
        else 0.0,
        "filler_examples": [e for r in rows for e in r["filler_examples"]][:8],
        "bad_titles": sum(r.get("bad_titles", 0) for r in rows),
        "bad_title_examples": [e for r in rows for e in r.get("bad_title_examples", [])][:8],
        "largest_page_facts": max((r["largest_page_facts"] for r in rows), default=0),
        "links_per_page": round(sum(r["links_per_page"] * r["pages"] for r in rows) / pages, 2)
        if pages
        else 0.0,
        "catch_all_share": round(
            sum(r["catch_all_facts"] for r in rows) / max(1, sum(r["facts"] for r in rows)), 3
        ),
    }
