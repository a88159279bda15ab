"""LoCoMo retrieval: `memory search` against rank-bm25 alone and dense alone, one run.

    python bench/locomo.py ../shared/data/locomo10.json [--granularity session|window] [--card]

Protocol (../shared/data/README.md): one page per session (or per 5-turn
window), `origin_date` = the session's date, body = one `Speaker: text` line
per turn; a page is relevant when it holds a cited dialog id; each question
searches only its own conversation; categories 1-4 are the primary set,
category 5 is reported apart; figures on the original and the corrected
(locomo-audit) evidence. Prints JSON: recall@1/5/10, hit@1/5/10 and MRR for
every variant. `memory_search` is the library call behind `memory search`
with the configured defaults; the other variants of one question come from
the same store queries (one per signal), so they differ only in fusion.

`--card` adds, per question (a fresh conversation each unless `--card-turns
sample`, clock one day after the conversation's last session): whether an evidence page is on the
`<memory>` card at the default budget (`hit`, `recall`, `pages` shown),
beside plain search top-k rendered by the same card renderer at the same
character budget, the card without backfill, and the card with each lane
switched off in turn, and the v2 engine's block (`v2_engine`) at the same
budget; `--card-variant NAME=TOML` adds a card with other `memory.v3`
settings and `--v2-variant NAME=TOML` a v2 block with other `memory.v2`
settings (repeatable), so defaults are chosen on the same run; `--cards`
keeps only the named ones.
`--skip N` starts at conversation N, to split a long run. `--card-turns
sample` asks each sample's questions in the dataset's order as one
conversation (so `hot` and the learned edges carry context from turn to
turn: 30% of consecutive questions there share an evidence window) instead
of each in a fresh one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from common import Wrapped, named_toml
from rank_bm25 import BM25Okapi

from injector import Injector
from injector.v3.card import CardPage, render_card
from substrate import Settings, Workspace, init_workspace, open_workspace, parse_config
from substrate.config.lanes import lane_order
from substrate.index import (
    DENSE,
    DENSE_ML,
    SPARSE,
    EdgeStore,
    Embedder,
    FastembedEmbedder,
    Fusion,
    SearchIndex,
    UseEmbedder,
    Vectors,
    candidate_chunks,
    fuse,
)
from substrate.index.bm25 import query_terms, query_vector, question_keys, tokenize
from substrate.pages import in_words

EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
KS = (1, 5, 10)
LOW_OVERLAP = 0.3  # the low-overlap stratum: at most this share of content words in the evidence
TURN_IN_CARD = 0.8
# (method, dense weight, multilingual weight); BM25 gets 1 - dense.
FUSIONS = [
    ("rrf", 0.7, 0.0),
    ("rrf", 0.5, 0.0),
    ("rrf", 0.3, 0.0),
    ("rrf", 0.2, 0.0),
    ("minmax", 0.7, 0.0),
    ("minmax", 0.5, 0.0),
    ("minmax", 0.4, 0.0),
    ("minmax", 0.3, 0.0),
    ("minmax", 0.2, 0.0),
    ("minmax", 0.1, 0.0),
    ("minmax", 0.3, 0.1),
    ("minmax", 0.3, 0.2),
    ("minmax", 0.3, 0.3),
    ("minmax", 0.3, 0.5),
]


def session_pages(sample: dict[str, Any], granularity: str) -> dict[str, tuple[str, set[str]]]:
    """slug -> (page text, dialog ids it holds)."""
    conv = sample["conversation"]
    pages: dict[str, tuple[str, set[str]]] = {}
    n = 1
    while f"session_{n}" in conv:
        when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        turns = conv[f"session_{n}"]
        groups = (
            [turns]
            if granularity == "session"
            else [turns[i : i + 5] for i in range(0, len(turns), 5)]
        )
        for g, group in enumerate(groups):
            lines = []
            for turn in group:
                line = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    line += f" [shares {turn['blip_caption']}]"
                lines.append(line)
            slug = f"locomo/{sample['sample_id']}/session-{n}" + (
                "" if granularity == "session" else f"-w{g}"
            )
            title = f"Session {n} ({when:%d %B %Y})"
            text = (
                f"---\ntitle: {title}\norigin_date: {when.isoformat()}\n---\n"
                + "\n".join(lines)
                + "\n"
            )
            pages[slug] = (text, {t["dia_id"] for t in group})
        n += 1
    return pages


def evidence_turns(sample: dict[str, Any], evidence: list[str]) -> list[str]:
    """The text of each cited dialog turn."""
    ids = {f"D{a}:{b}" for ev in evidence for a, b in EVIDENCE.findall(ev)}
    return [
        turn["text"]
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
        if turn.get("dia_id") in ids
    ]


def relevant(evidence: list[str], pages: dict[str, tuple[str, set[str]]]) -> set[str]:
    ids = {f"D{a}:{b}" for ev in evidence for a, b in EVIDENCE.findall(ev)}
    return {slug for slug, (_, dia) in pages.items() if dia & ids}


def corrections(audit_dir: Path, conv_index: int) -> dict[int, list[str]]:
    path = audit_dir / f"errors_conv_{conv_index}.json"
    if not path.exists():
        return {}
    out = {}
    for item in json.loads(path.read_text()):
        if item.get("correct_evidence") is not None:
            out[int(item["question_id"].rsplit("qa", 1)[1])] = item["correct_evidence"]
    return out


def metrics(ranked: list[str], rel: set[str]) -> dict[str, float]:
    out = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"recall@{k}"] = len(top & rel) / len(rel)
        out[f"hit@{k}"] = float(bool(top & rel))
    first = next((i for i, slug in enumerate(ranked) if slug in rel), None)
    out["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return out


class CachedQueries(Wrapped):
    """The model, with the questions' vectors computed once in a batch and reused."""

    def __init__(self, inner: Embedder, vectors: dict[str, Vectors]) -> None:
        super().__init__(inner)
        self.vectors = vectors

    def embed_query(self, text: str) -> Vectors:
        cached = self.vectors.get(text)
        return cached if cached is not None else self.inner.embed_query(text)


V3 = "[memory.v3]\nlive = true\n"
V2 = "[memory.v3]\nlive = false\n[memory.v2]\nenabled = true\n"


def card_variants(
    ws: Workspace,
    index: SearchIndex,
    now: float,
    extra: dict[str, str],
    only: set[str] | None,
) -> dict[str, Injector]:
    """The default card, one with each lane switched off, the v2 engine at the same
    character budget, and any `--card-variant` / `--v2-variant`, each with its own
    state (conversation, learned edges) over the same pages and index; `only`
    keeps the named ones."""
    variants = (
        {"card": V3, "card_no_backfill": f"{V3}backfill = false\n"}
        | {f"card_no_{lane}": f"{V3}quota_{lane} = 0\n" for lane in lane_order()}
        | {"v2_engine": V2}
        | extra
    )
    out = {}
    for name, toml in variants.items():
        if only is not None and name not in only:
            continue
        root = ws.root.parent / f"{ws.root.name}-{name}"
        (root / ".substrate").mkdir(parents=True, exist_ok=True)
        (root / "memory").symlink_to(ws.memory_dir, target_is_directory=True)
        settings = Settings(Workspace(root), parse_config(toml))
        assert settings.v2.router_budget_chars == settings.v3.card_budget_chars  # same budget
        out[name] = Injector(settings, index, clock=lambda: now)
    return out


def search_at_budget(
    index: SearchIndex, question: str, budget: int, k: int = 20, today: str | None = None
) -> tuple[list[str], str]:
    """Plain search top-k rendered with the card's renderer at the same budget, in the
    same format (each page with its `dated` stamp), so only the choice of pages and
    excerpts differs: (the slugs shown, the rendered text)."""
    hits = index.search(question, k)
    pages = [
        CardPage(
            h.slug, h.title, h.fresh_at[:10] if h.fresh_at else None, ("sim",), h.source, h.excerpt
        )
        for h in hits
    ]
    text, shown = render_card(pages, budget, today)
    return [p.slug for p in shown], text


def evidence_share(text: str, turns: list[str]) -> float:
    """The best evidence turn's share of content words present in `text`."""
    words = set(tokenize(text))
    shares = [len(set(tokenize(t)) & words) / len(set(tokenize(t))) for t in turns if tokenize(t)]
    return max(shares, default=0.0)


def folded(text: str) -> str:
    return " ".join(text.lower().split())


def cut_inside(text: str) -> bool:
    """Whether a page's excerpt on the card ends a line inside a fact: a line that
    ends with the ellipsis an excerpt cut leaves (a line that is only an
    ellipsis marks skipped whole facts, and is not a cut)."""
    return any(line.rstrip().endswith("…") and line.strip() != "…" for line in text.split("\n"))


def shown_metrics(
    shown: list[str],
    text: str,
    rel: set[str],
    turns: list[str],
    answer: str | None,
    budget: int | None = None,
) -> dict[str, float]:
    """Page-level hit and recall, and whether the evidence itself made it into the
    text: the best evidence turn's share of content words (`evidence`), at least
    80% of them (`turn_in_card`), and (`answer_in_card`, -1 when the answer string
    is not in an evidence turn) the answer string itself."""
    share = evidence_share(text, turns)
    quoted = answer is not None and any(folded(answer) in folded(t) for t in turns)
    return {
        "hit": float(bool(set(shown) & rel)),
        "recall": len(set(shown) & rel) / len(rel),
        "pages": float(len(shown)),
        "evidence": share,
        "turn_in_card": float(share >= TURN_IN_CARD),
        "answer_in_card": float(folded(answer or "") in folded(text)) if quoted else -1.0,
        "budget_used": len(text) / budget if budget else -1.0,
        "cut_inside_a_fact": float(cut_inside(text)),
    }


def overlap(question: str, turns: list[str]) -> float:
    """The share of the question's content words present in its evidence turns."""
    terms = set(tokenize(question))
    evidence = {tok for turn in turns for tok in tokenize(turn)}
    return len(terms & evidence) / len(terms) if terms else 1.0


def parse_variant(spec: str, engine: str) -> tuple[str, str]:
    """`NAME=key = value;key = value` -> (card name, its whole TOML), checked by the
    config parser; `engine` "v3" puts the lines under memory.v3, "v2" under memory.v2."""
    name, lines = named_toml(spec, f"memory.{engine}", f"--{engine}-variant")
    return f"{'card' if engine == 'v3' else 'v2'}_{name}", (V3 if engine == "v3" else V2) + lines


def bm25_baseline_tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--granularity", choices=["session", "window"], default="session")
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument(
        "--partial",
        type=Path,
        help="rewrite this file with the figures so far after each conversation",
    )
    parser.add_argument(
        "--card",
        action="store_true",
        help="also measure the <memory> card (default and each lane off) against plain "
        "search cut to the same character budget",
    )
    parser.add_argument(
        "--card-variant",
        action="append",
        default=[],
        metavar="NAME=TOML",
        help="another card to measure: NAME=memory.v3 lines, e.g. "
        "'lowfloor=sim_floor_dense = 0.25;sim_floor_bm25 = 2.0' (';' separates lines)",
    )
    parser.add_argument(
        "--v2-variant",
        action="append",
        default=[],
        metavar="NAME=TOML",
        help="another v2-engine block to measure: NAME=memory.v2 lines, e.g. "
        "'strict=router_threshold = 0.4'",
    )
    parser.add_argument(
        "--cards",
        help="measure only these cards (comma-separated names, e.g. card,v2_engine)",
    )
    parser.add_argument(
        "--card-turns",
        choices=["fresh", "sample"],
        default="fresh",
        help="fresh: each question starts its own conversation; sample: a sample's "
        "questions are asked in the dataset's order as one conversation",
    )
    parser.add_argument(
        "--skip",
        type=int,
        default=0,
        help="start at this conversation (0-based), to split a run",
    )
    args = parser.parse_args()
    extra_variants = dict(parse_variant(v, "v3") for v in args.card_variant)
    extra_variants |= dict(parse_variant(v, "v2") for v in args.v2_variant)
    only = set(args.cards.split(",")) if args.cards else None
    samples = json.loads(args.data.read_text())[: args.conversations]
    audit_dir = args.data.parent / "locomo-audit"
    config = parse_config("[memory.v3]\nlive = true\n")
    results: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    dropped = 0
    timing: dict[str, float] = {"index_s": 0.0, "query_embed_s": 0.0, "query_s": 0.0, "queries": 0}
    with tempfile.TemporaryDirectory() as tmp:
        model = FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tmp) / "cache")
        multilingual = UseEmbedder()
        for ci, sample in enumerate(samples):
            if ci < args.skip:
                continue
            pages = session_pages(sample, args.granularity)
            root = Path(tmp) / f"conv{ci}"
            init_workspace(root)
            ws = open_workspace(root)
            for slug, (text, _) in pages.items():
                path = ws.concepts_dir / f"{slug}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            index = SearchIndex(
                Settings(ws, config), model, EdgeStore(ws.state_dir / "qdrant"), multilingual
            )
            started = time.perf_counter()
            index.maintain()
            timing["index_s"] += time.perf_counter() - started
            slugs = list(pages)
            bm25 = BM25Okapi(
                [bm25_baseline_tokens(pages[s][0].split("---\n", 2)[2]) for s in slugs]
            )
            fixes = corrections(audit_dir, ci)
            started = time.perf_counter()
            question_vectors = index.embed_queries([qa["question"] for qa in sample["qa"]])
            timing["query_embed_s"] += time.perf_counter() - started
            cards: dict[str, Injector] = {}
            if args.card:
                cached = {
                    name: CachedQueries(
                        inner,
                        {
                            qa["question"]: v[name]
                            for qa, v in zip(sample["qa"], question_vectors, strict=True)
                        },
                    )
                    for name, inner in ((DENSE, model), (DENSE_ML, multilingual))
                }
                card_index = SearchIndex(
                    Settings(ws, config), cached[DENSE], index.store, cached[DENSE_ML]
                )
                last_session = max(
                    datetime.strptime(v, "%I:%M %p on %d %B, %Y")
                    for k, v in sample["conversation"].items()
                    # some samples date sessions that hold no dialogue: not part of memory
                    if k.endswith("_date_time")
                    and sample["conversation"].get(k[: -len("_date_time")])
                )
                cards = card_variants(
                    ws, card_index, last_session.timestamp() + 86400, extra_variants, only
                )
                budget = Settings(ws, config).v3.card_budget_chars
                today = in_words((last_session + timedelta(days=1)).date())
            for qi, qa in enumerate(sample["qa"]):
                keys = {"original": qa.get("evidence", [])}
                keys["corrected"] = fixes.get(qi, keys["original"])
                rels = {name: relevant(ev, pages) for name, ev in keys.items()}
                if not rels["original"]:
                    dropped += 1
                    continue
                started = time.perf_counter()
                signals = index.store.search(
                    question_vectors[qi],
                    query_vector(query_terms(qa["question"]), question_keys(qa["question"])),
                    candidate_chunks(10),
                    ["page"],
                )
                timing["query_s"] += time.perf_counter() - started
                timing["queries"] += 1
                scores = bm25.get_scores(bm25_baseline_tokens(qa["question"]))
                rankings = {
                    name: [h.slug for h in fuse(signals, Fusion({signal: 1.0}, "rrf"))]
                    for name, signal in (("dense", DENSE), ("sparse", SPARSE), ("ml", DENSE_ML))
                }
                rankings["rank_bm25"] = [
                    slugs[i] for i in sorted(range(len(slugs)), key=lambda i: -scores[i])
                ]
                rankings["memory_search"] = [
                    h.slug for h in index.search_embedded(qa["question"], question_vectors[qi], 10)
                ]
                coverage = index.coverage(qa["question"], signals.get(SPARSE, []))
                guards = index.fusion()
                for method, w, ml in FUSIONS:
                    weights = {DENSE: w, SPARSE: 1 - w, DENSE_ML: ml}
                    plain = Fusion(weights, method)
                    rankings[f"{method}_d{w}_ml{ml}"] = [h.slug for h in fuse(signals, plain)]
                    if method == "minmax":
                        guarded = replace(guards, weights=weights)
                        rankings[f"guarded_d{w}_ml{ml}"] = [
                            h.slug for h in fuse(signals, guarded, coverage)
                        ]
                group = "cat1-4" if qa.get("category") in (1, 2, 3, 4) else "cat5"
                turns = evidence_turns(sample, keys["original"])
                low = overlap(qa["question"], turns) <= LOW_OVERLAP
                shown: dict[str, tuple[list[str], str]] = {}
                if cards:
                    shown["search_at_budget"] = search_at_budget(
                        card_index, qa["question"], budget, today=today
                    )
                    shown["search_top5_at_budget"] = search_at_budget(
                        card_index, qa["question"], budget, k=5, today=today
                    )
                    conversation = f"locomo-{ci}" if args.card_turns == "sample" else None
                    for name, injector in cards.items():
                        blocks = injector.assemble(qa["question"], conversation)
                        shown[name] = ([s.slug for s in blocks.selected], blocks.memory)
                answer = str(qa["answer"]) if qa.get("answer") is not None else None
                for key_name, rel in rels.items():
                    if not rel:
                        continue
                    for name, ranked in rankings.items():
                        results[f"{group}/{key_name}"][name].append(metrics(ranked, rel))
                        if low:
                            results[f"{group}/{key_name}/low_overlap"][name].append(
                                metrics(ranked, rel)
                            )
                    key_turns = evidence_turns(sample, keys[key_name])
                    for name, (slugs_shown, text) in shown.items():
                        results[f"{group}/{key_name}/card"][name].append(
                            shown_metrics(slugs_shown, text, rel, key_turns, answer, budget)
                        )
            index.store.close()
            print(f"conversation {ci + 1}/{len(samples)} done", file=sys.stderr)
            if args.partial:
                args.partial.write_text(
                    json.dumps(summarise(results, dropped, timing, ci + 1, args), indent=1)
                )
    print(json.dumps(summarise(results, dropped, timing, len(samples), args), indent=1))


def summarise(
    results: dict[str, dict[str, list[dict[str, float]]]],
    dropped: int,
    timing: dict[str, float],
    conversations: int,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Means of every metric per question group, evidence key and variant."""
    report: dict[str, Any] = {
        "granularity": args.granularity,
        "conversations": conversations,
        "dropped_questions": dropped,
        "timing": {k: round(v, 2) for k, v in timing.items()},
    }
    for group, variants in sorted(results.items()):
        report[group] = {name: _means(rows) for name, rows in variants.items()}
    return report


def _means(rows: list[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean; `answer_in_card` over the questions it applies to (>= 0)."""
    out: dict[str, float] = {"n": len(rows)}
    for m in rows[0]:
        values = [r[m] for r in rows if m != "answer_in_card" or r[m] >= 0]
        if m == "answer_in_card":
            out["answer_n"] = len(values)
        out[m] = round(sum(values) / len(values), 3) if values else float("nan")
    return out


if __name__ == "__main__":
    main()
