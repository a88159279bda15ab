"""Consolidation on LoCoMo's own observations: remembered facts filed into pages.

    python bench/consolidation.py ../shared/data/locomo10.json [--conversations 10]
        [--half all|even|odd] [--variant NAME=TOML ...] [--cli]

Each LoCoMo session carries per-speaker observation facts (2,541 in all) with
the dialog ids they come from. Per conversation, three workspaces hold them:

- `consolidated`: every observation remembered with its session's date (the
  library call behind `memory remember --at`), then filed by `consolidate_all`
  with the search index and a re-index after each run (what `memory
  consolidate` does); `--variant NAME=TOML` adds one per `[memory.substrate]`
  setting to compare (`;` separates lines);
- `per_observation`: one page per observation, built with `memory ingest`'s
  library call;
- `per_session`: one page per session holding its observations as bullets.

The conversation's questions (categories 1-4) are then asked of each. An
observation is relevant to a question when its dialog ids meet the question's
evidence; questions with no relevant observation are left out (counted).
Scored on what the assistant would read, so page granularity cannot game it:
`evidence_hit@5`, a relevant observation's text (whitespace-folded) inside the
excerpts of the top 5 hits; `card_evidence_hit`, inside the rendered
`<memory>` card at the default budget (each question a fresh conversation).
Also: facts lost (observation texts on no page), facts duplicated (on pages
more often than the data holds them), pages and their size, and filing
seconds per 100 facts with the embedding model's share apart. `--cli` asks
through `memory search --batch` and `memory card --batch` instead of the
same library calls in this process (slower: one model load per call).
`--half even|odd` keeps alternate conversations, to choose settings on one
half and report on the other.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# `bench/ingest.py` would shadow the `ingest` package for a script run from bench/.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from ingest import InlineSource, run as run_ingest
from injector import Injector
from substrate import Settings, Workspace, init_workspace, open_workspace, parse_config, remember
from substrate.consolidation import consolidate_all
from substrate.index import (
    EdgeStore,
    Embedder,
    FastembedEmbedder,
    SearchIndex,
    UseEmbedder,
    Vectors,
)
from substrate.pages import fact_bullets

EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
DATE = "%I:%M %p on %d %B, %Y"


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


def fold(text: str) -> str:
    return " ".join(text.split())


def observations(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """Every observation: session number, its date, text, dialog ids."""
    conv = sample["conversation"]
    out = []
    for key, by_speaker in sample["observation"].items():
        n = int(key.split("_")[1])
        when = datetime.strptime(conv[f"session_{n}_date_time"], DATE).replace(tzinfo=UTC)
        for items in by_speaker.values():
            for text, dia in items:
                ids = {f"D{a}:{b}" for a, b in EVIDENCE.findall(str(dia))}
                out.append({"session": n, "at": when, "text": str(text).strip(), "ids": ids})
    return sorted(out, key=lambda o: (o["session"], o["at"]))


def questions(sample: dict[str, Any], obs: list[dict[str, Any]]) -> tuple[list[Any], int]:
    """[(question, relevant observation texts)] of categories 1-4, and how many had none."""
    out, dropped = [], 0
    for qa in sample["qa"]:
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        wanted = {f"D{a}:{b}" for ev in qa.get("evidence", []) for a, b in EVIDENCE.findall(ev)}
        texts = {fold(o["text"]) for o in obs if o["ids"] & wanted}
        if texts:
            out.append((qa["question"], texts))
        else:
            dropped += 1
    return out, dropped


V3_TOML = ""  # `--v3`: [memory.v3] lines for every workspace (card settings)


def workspace(root: Path, substrate_toml: str = "") -> Settings:
    init_workspace(root)
    config = f"[memory.v3]\nlive = true\n{V3_TOML}[memory.substrate]\n{substrate_toml}"
    (root / "config.toml").write_text(config)
    return Settings(open_workspace(root), parse_config(config))


def page_facts(ws: Workspace) -> tuple[Counter[str], list[int]]:
    """(folded fact or page-body line -> times on pages, page sizes in characters)."""
    counts: Counter[str] = Counter()
    sizes = []
    for path in ws.concepts_dir.rglob("*.md"):
        text = path.read_text()
        sizes.append(len(text))
        bullets = fact_bullets(text)
        if bullets:
            counts.update(fold(b.text) for b in bullets)
        else:
            body = text.split("\n---\n", 1)[-1]
            counts.update(
                fold(line.removeprefix("- ")) for line in body.splitlines() if line.strip()
            )
    return counts, sizes


def build_consolidated(
    root: Path, obs: list[dict[str, Any]], models: tuple[Timed, Timed], toml: str
) -> tuple[Settings, SearchIndex, dict[str, float]]:
    settings = workspace(root, toml)
    index = SearchIndex(settings, models[0], EdgeStore(root / ".substrate/qdrant"), models[1])
    index.maintain()
    started = time.perf_counter()
    for o in obs:
        remember(settings, o["text"], now=o["at"])
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


def build_ingested(
    root: Path, pages: dict[str, str], models: tuple[Timed, Timed]
) -> tuple[Settings, SearchIndex, dict[str, float]]:
    settings = workspace(root)
    started = time.perf_counter()
    run_ingest(settings, InlineSource(tuple(pages.items())))
    index = SearchIndex(settings, models[0], EdgeStore(root / ".substrate/qdrant"), models[1])
    index.maintain()
    return settings, index, {"seconds": time.perf_counter() - started, "model_seconds": 0.0}


def per_observation(obs: list[dict[str, Any]]) -> dict[str, str]:
    return {
        f"obs/s{o['session']}-{i}": f"---\ntitle: Observation {i}\norigin_date: "
        f"{o['at']:%Y-%m-%d}\n---\n{o['text']}\n"
        for i, o in enumerate(obs)
    }


def per_session(obs: list[dict[str, Any]]) -> dict[str, str]:
    sessions: dict[int, list[dict[str, Any]]] = {}
    for o in obs:
        sessions.setdefault(o["session"], []).append(o)
    return {
        f"session-{n}": f"---\ntitle: Session {n} ({items[0]['at']:%d %B %Y})\norigin_date: "
        f"{items[0]['at']:%Y-%m-%d}\n---\n" + "\n".join(f"- {o['text']}" for o in items) + "\n"
        for n, items in sessions.items()
    }


def ask(
    settings: Settings, index: SearchIndex, qs: list[Any], now: float, use_cli: bool
) -> tuple[list[str], list[str]]:
    """(the top 5 excerpts joined, the card's text) per question."""
    if use_cli:
        return _ask_cli(settings.workspace.root, qs)
    injector = Injector(settings, index, clock=lambda: now)
    excerpts, cards = [], []
    for q, _ in qs:
        excerpts.append("\n".join(h.excerpt for h in index.search(q, 5)))
        cards.append(injector.assemble(q).memory)
    return excerpts, cards


def _ask_cli(root: Path, qs: list[Any]) -> tuple[list[str], list[str]]:
    memory = str(Path(sys.executable).parent / "memory")
    search_in = "".join(json.dumps({"query": q}) + "\n" for q, _ in qs)
    found = subprocess.run(
        [memory, "search", "--workspace", str(root), "--batch", "--k", "5"],
        input=search_in,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    card_in = "".join(json.dumps({"message": q}) + "\n" for q, _ in qs)
    shown = subprocess.run(
        [memory, "card", "--workspace", str(root), "--batch"],
        input=card_in,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    excerpts = ["\n".join(h["excerpt"] for h in json.loads(line)["hits"]) for line in found]
    return excerpts, [json.loads(line)["memory"] for line in shown]


def score(qs: list[Any], excerpts: list[str], cards: list[str]) -> dict[str, float]:
    hit5 = card = 0
    for (_, texts), shown, memory in zip(qs, excerpts, cards, strict=True):
        seen, on_card = fold(shown), fold(html.unescape(memory))
        hit5 += any(t in seen for t in texts)
        card += any(t in on_card for t in texts)
    return {"evidence_hit@5": hit5, "card_evidence_hit": card, "questions": len(qs)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--half", choices=["all", "even", "odd"], default="all")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=TOML")
    parser.add_argument("--cli", action="store_true", help="ask through the CLI's --batch modes")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--v3",
        default="",
        metavar="TOML",
        help="[memory.v3] lines for every workspace (';' separates)",
    )
    args = parser.parse_args()
    global V3_TOML
    V3_TOML = "".join(f"{line.strip()}\n" for line in args.v3.split(";") if line.strip())
    samples = json.loads(args.data.read_text())[: args.conversations]
    keep = {
        "all": range(len(samples)),
        "even": range(0, len(samples), 2),
        "odd": range(1, len(samples), 2),
    }[args.half]
    variants = {"consolidated": ""} | dict(_variant(v) for v in args.variant)
    models = (
        Timed(
            FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tempfile.gettempdir()) / "bench-models")
        ),
        Timed(UseEmbedder()),
    )
    totals: dict[str, Counter[str]] = {}
    sizes: dict[str, list[int]] = {}
    filing: dict[str, Counter[str]] = {}
    dropped = facts = 0
    with tempfile.TemporaryDirectory() as scratch:
        for c in keep:
            sample = samples[c]
            obs = observations(sample)
            qs, gone = questions(sample, obs)
            dropped += gone
            facts += len(obs)
            last = max(o["at"] for o in obs).timestamp() + 86400
            kinds = [*variants, *([] if args.no_baselines else ["per_observation", "per_session"])]
            for name in kinds:
                root = Path(scratch, f"{c}-{name}")
                if name in variants:
                    settings, index, timing = build_consolidated(root, obs, models, variants[name])
                else:
                    pages = per_observation(obs) if name == "per_observation" else per_session(obs)
                    settings, index, timing = build_ingested(root, pages, models)
                on_pages, page_sizes = page_facts(settings.workspace)
                wanted = Counter(fold(o["text"]) for o in obs)
                row = totals.setdefault(name, Counter())
                row["facts_lost"] += sum(1 for t in wanted if on_pages[t] == 0)
                row["facts_duplicated"] += sum(1 for t, n in wanted.items() if on_pages[t] > n)
                row["pages"] += len(page_sizes)
                sizes.setdefault(name, []).extend(page_sizes)
                filing.setdefault(name, Counter()).update(timing)
                excerpts, cards = ask(settings, index, qs, last, args.cli)
                row.update(score(qs, excerpts, cards))
                index.store.close()
                print(f"conversation {c} {name}: {dict(row)}", file=sys.stderr)
    report = {"facts": facts, "questions_without_relevant_observation": dropped, "half": args.half}
    for name, row in totals.items():
        n = row["questions"]
        page_sizes = sorted(sizes[name])
        entry: dict[str, Any] = {
            "facts_lost": row["facts_lost"],
            "facts_duplicated": row["facts_duplicated"],
            "pages": row["pages"],
            "page_chars_p50_p90_max": [
                int(statistics.median(page_sizes)),
                page_sizes[int(0.9 * (len(page_sizes) - 1))],
                page_sizes[-1],
            ],
            "evidence_hit@5": round(row["evidence_hit@5"] / n, 3),
            "card_evidence_hit": round(row["card_evidence_hit"] / n, 3),
            "questions": n,
        }
        if name in variants:
            t = filing[name]
            entry["filing_s_per_100_facts"] = {
                "model": round(100 * t["model_seconds"] / facts, 3),
                "rest": round(100 * (t["seconds"] - t["model_seconds"]) / facts, 3),
            }
            entry["remember_s_per_100_facts"] = round(100 * t["remember_seconds"] / facts, 3)
        report[name] = entry
    print(json.dumps(report, indent=1))


def _variant(spec: str) -> tuple[str, str]:
    name, sep, lines = spec.partition("=")
    if not sep:
        raise SystemExit(f"--variant {spec!r}: expected NAME=TOML")
    toml = "".join(f"{line.strip()}\n" for line in lines.split(";") if line.strip())
    parse_config(f"[memory.substrate]\n{toml}", source=f"--variant {name}")
    return name.strip(), toml


if __name__ == "__main__":
    main()
