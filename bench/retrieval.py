"""Retrieval on every set at once: the default against each signal alone, the
card against search's top 5, and whether the top 5 depends on k.

    python bench/retrieval.py ../shared/data [--sets locomo,longmemeval,xquad,notes]
        [--half all|even|odd] [--limit N]

The sets, each its own workspace shape:

- `locomo`: one page per session of each conversation (`bench/locomo.py`'s
  pages), the conversation's questions of categories 1-4; relevant: the pages
  holding a cited dialog turn; evidence: those turns. Kind: the category.
- `longmemeval`: the oracle, each question its own workspace of its sessions
  (one page each, both roles); relevant: the sessions holding a `has_answer`
  turn; evidence: those turns. Kind: the question type.
- `xquad`: each paragraph a page, the English and the Arabic paragraphs each
  their own workspace (the data's protocol); English questions of the English
  pages, Arabic and English questions of the Arabic pages; relevant: the
  question's paragraph; evidence: the sentence holding the answer. Kind: the
  direction (`en->en`, `ar->ar`, `en->ar`).
- `notes`: notes, not chat: XQuAD's English articles, each one long page of
  its paragraphs' sentences as lines (20-60 lines a page); relevant: the
  article; evidence: the answer's sentence (a line deep in a long page).

Per question: `recall@5` and `mrr` of the default search and of each signal
alone (`dense`, `dense_ml`, `sparse`, each fused alone from the same store
query), `below_best` (the default's recall@5 under the best single
signal's), the card's page hit and evidence line against plain search's top
5 rendered at the same budget (`card_hit`, `search5_hit`, `card_line`,
`search5_line`: the evidence's content words, at least 80%, in the text),
and `same_top5` (the default's first five, set and order, identical at k=5,
10, 20 and 50). The **paraphrase** stratum: the questions sharing no content
word with their evidence (selected), reported beside each set's kinds. The
**rewritten** stratum: every other chosen question with each word whose stem
its evidence holds deleted ("What was the name of the plumber we used last
winter?", evidence "called the plumber in January", becomes "What was the
name of the we used last winter?"), kept when at least two content words
remain; deletion, not a model's rewording (no model runs here), so what is
left is whatever the question said beyond its evidence's words. Scored as
`rewritten` beside the kinds and never among `all`. The **unshared**
stratum: every chosen question with each word whose stem its relevant pages
hold *anywhere* deleted, kept when at least two content words remain, so no
content word of the question (nor its stem) is on its page and only meaning
can find it ("What type of venue did John and his girlfriend choose for their
wedding ceremony?" becomes "What type of did and his choose for their").
`--half` keeps alternate questions (choose on one, report on the other);
`--card-variant NAME=TOML` scores a card with other `memory.v3` settings
beside the default (`card_hit:NAME`, `card_line:NAME`); `--dump DIR` writes
every question's store query for `bench/fusion_fit.py`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common import named_toml
from filing import Models, build_pages, load_models, with_v3
from locomo import evidence_share, relevant, search_at_budget, session_pages, tokenize
from longmemeval import page_text, slug_of

from injector import Injector
from substrate import Settings, Workspace
from substrate.index import DENSE, DENSE_ML, SPARSE, SearchIndex, candidate_chunks, fuse
from substrate.index.bm25 import query_terms, query_vector, question_keys
from substrate.index.search_index import QueryVectors
from substrate.index.store import StoreHit

KS = (5, 10, 20, 50)
LINE = 0.8  # the evidence line is on: at least this share of its content words
SINGLE = {"dense": DENSE, "dense_ml": DENSE_ML, "sparse": SPARSE}
SENTENCE = re.compile(r"(?<=[.!?؟])\s+")


@dataclass
class Question:
    text: str
    relevant: set[str]
    evidence: list[str]
    kind: str


@dataclass
class Corpus:
    name: str
    pages: dict[str, str]
    questions: list[Question]


def locomo(data: Path) -> Iterator[Corpus]:
    for sample in json.loads((data / "locomo10.json").read_text()):
        pages = session_pages(sample, "session")
        turns = {
            t["dia_id"]: f"{t['speaker']}: {t['text']}"
            for k, v in sample["conversation"].items()
            if k.startswith("session_") and isinstance(v, list)
            for t in v
        }
        questions = []
        for qa in sample["qa"]:
            if qa.get("category") not in (1, 2, 3, 4):
                continue
            rel = relevant(qa.get("evidence", []), pages)
            ids = re.findall(r"D:?\d+:\d+", " ".join(qa.get("evidence", [])))
            evidence = [turns[i.replace("D:", "D")] for i in ids if i.replace("D:", "D") in turns]
            if rel and evidence:
                questions.append(Question(qa["question"], rel, evidence, f"cat{qa['category']}"))
        yield Corpus(
            f"locomo/{sample['sample_id']}", {s: t for s, (t, _) in pages.items()}, questions
        )


def longmemeval(data: Path) -> Iterator[Corpus]:
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        questions = [q for q in json.load(f) if not q["question_id"].endswith("_abs")]
    for q in questions:
        sessions = zip(
            q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
        )
        pages, rel, evidence = {}, set(), []
        for sid, date, turns in sessions:
            pages[slug_of(sid)] = page_text(sid, date, turns)
            said = [t["content"] for t in turns if t.get("has_answer")]
            if said:
                rel.add(slug_of(sid))
                evidence += said
        if rel:
            question = Question(q["question"], rel, evidence, q["question_type"])
            yield Corpus(f"longmemeval/{q['question_id']}", pages, [question])


def _xquad(data: Path, lang: str) -> list[dict[str, Any]]:
    doc = json.loads((data / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    return list(doc["data"])


def _answer_sentence(context: str, answer: str) -> str:
    for sentence in SENTENCE.split(context):
        if answer in sentence:
            return sentence
    return context


def xquad(data: Path) -> Iterator[Corpus]:
    """The protocol's three directions over two workspaces: the English
    paragraphs (`en->en`), the Arabic ones (`ar->ar` and `en->ar`)."""
    articles = {lang: _xquad(data, lang) for lang in ("en", "ar")}
    for lang, asked in (("en", ("en",)), ("ar", ("ar", "en"))):
        pages: dict[str, str] = {}
        questions = []
        for a, article in enumerate(articles[lang]):
            for n, paragraph in enumerate(article["paragraphs"]):
                slug = f"xquad/{lang}/{a}-{n}"
                pages[slug] = f"---\ntitle: {lang} {a}-{n}\n---\n{paragraph['context']}\n"
                for by in asked:
                    qas = articles[by][a]["paragraphs"][n]["qas"]
                    for qa, own in zip(qas, paragraph["qas"], strict=True):
                        line = _answer_sentence(paragraph["context"], own["answers"][0]["text"])
                        questions.append(Question(qa["question"], {slug}, [line], f"{by}->{lang}"))
        yield Corpus(f"xquad/{lang}", pages, questions)


def notes(data: Path) -> Iterator[Corpus]:
    pages: dict[str, str] = {}
    questions = []
    for a, article in enumerate(_xquad(data, "en")):
        slug = f"notes/{a}"
        lines = [s for p in article["paragraphs"] for s in SENTENCE.split(p["context"]) if s]
        pages[slug] = f"---\ntitle: {article.get('title', f'Note {a}')}\n---\n" + "\n".join(
            f"- {line}" for line in lines
        )
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                line = _answer_sentence(p["context"], qa["answers"][0]["text"])
                questions.append(Question(qa["question"], {slug}, [line], "notes"))
    yield Corpus("notes", pages, questions)


SETS = {"locomo": locomo, "longmemeval": longmemeval, "xquad": xquad, "notes": notes}


def paraphrased(q: Question) -> bool:
    words = set(tokenize(q.text))
    return bool(words) and not words & {t for e in q.evidence for t in tokenize(e)}


def rewritten(q: Question) -> Question | None:
    """`q` without the words its evidence shares (module doc), or None when that
    deletes nothing or leaves fewer than two content words."""
    return _without(q, {t for e in q.evidence for t in tokenize(e)}, "rewritten")


def unshared(q: Question, pages: dict[str, str]) -> Question | None:
    """`q` without every word whose stem its relevant pages hold anywhere, or
    None when that deletes nothing or leaves fewer than two content words: a
    question that shares no content word (nor its stem) with its page, so
    only meaning can find it (the `unshared` stratum)."""
    shared = {t for slug in q.relevant for t in tokenize(pages.get(slug, ""))}
    return _without(q, shared, "unshared")


def _without(q: Question, shared: set[str], kind: str) -> Question | None:
    """`q` with each word whose stem is in `shared` deleted, as a `kind`
    question; None when nothing is deleted or fewer than two content words stay."""
    kept = [w for w in q.text.split() if not set(tokenize(w)) & shared]
    text = " ".join(kept)
    if len(kept) == len(q.text.split()) or len(tokenize(text)) < 2:
        return None
    return Question(text, q.relevant, q.evidence, kind)


def recall_mrr(ranked: list[str], rel: set[str]) -> tuple[float, float]:
    first = next((i for i, s in enumerate(ranked) if s in rel), None)
    return len(set(ranked[:5]) & rel) / len(rel), 0.0 if first is None else 1 / (first + 1)


def variant_injectors(
    settings: Settings, index: SearchIndex, variants: list[tuple[str, str]]
) -> dict[str, Injector]:
    """An injector per `--card-variant`, each with its own state (conversations,
    learned edges) over the same pages and index."""
    out = {}
    for name, toml in variants:
        root = settings.workspace.root.parent / f"{settings.workspace.root.name}-{name}"
        (root / ".substrate").mkdir(parents=True, exist_ok=True)
        (root / "memory").symlink_to(settings.workspace.memory_dir, target_is_directory=True)
        out[name] = Injector(with_v3(Workspace(root), toml), index)
    return out


def score(
    index: SearchIndex,
    injector: Injector,
    q: Question,
    budget: int,
    others: dict[str, Injector] | None = None,
    dump: list[dict[str, Any]] | None = None,
) -> dict[str, float]:
    vectors = index.embed_query(q.text)
    signals, coverage = store_query(index, q.text, vectors, ["page"])
    if dump is not None:
        dump.append(dumped(q, signals, coverage))
    row: dict[str, float] = {}
    firsts = []
    for k in KS:
        hits = index.search_embedded(q.text, vectors, k, excerpt_chars=None)
        firsts.append([(h.slug, round(h.score, 9)) for h in hits[:5]])
    row["same_top5"] = float(all(f == firsts[0] for f in firsts))
    ranked = [h.slug for h in index.search_embedded(q.text, vectors, 50, excerpt_chars=None)]
    row["recall@5"], row["mrr"] = recall_mrr(ranked, q.relevant)
    best = 0.0
    for name, signal in SINGLE.items():
        if signal not in signals:
            continue
        alone = fuse(signals, replace(index.fusion(), weights={signal: 1.0}), coverage)
        r5, mrr = recall_mrr([h.slug for h in alone], q.relevant)
        row[f"{name}_recall@5"], row[f"{name}_mrr"] = r5, mrr
        best = max(best, r5)
    row["below_best"] = float(row["recall@5"] < best)
    blocks = injector.assemble(q.text)
    shown = {s.slug for s in blocks.selected}
    row["card_hit"] = float(bool(shown & q.relevant))
    row["card_line"] = float(evidence_share(blocks.memory, q.evidence) >= LINE)
    for name, other in (others or {}).items():
        card = other.assemble(q.text)
        row[f"card_hit:{name}"] = float(bool({s.slug for s in card.selected} & q.relevant))
        row[f"card_line:{name}"] = float(evidence_share(card.memory, q.evidence) >= LINE)
    top5, text = search_at_budget(index, q.text, budget, k=5)
    row["search5_hit"] = float(bool(set(top5) & q.relevant))
    row["search5_line"] = float(evidence_share(text, q.evidence) >= LINE)
    return row


def store_query(
    index: SearchIndex, text: str, vectors: QueryVectors, kinds: list[str]
) -> tuple[dict[str, list[StoreHit]], float]:
    """One question's store query over `kinds` (every signal's chunks, as many
    as a search of 50 fetches) and BM25's coverage, for fusing offline."""
    tokens, keys = query_terms(text), question_keys(text)
    signals = index.store.search(vectors, query_vector(tokens, keys), candidate_chunks(50), kinds)
    return signals, index.coverage(text, signals.get(SPARSE, []))


def dumped(q: Question, signals: dict[str, list[Any]], coverage: float) -> dict[str, Any]:
    """What a fusion needs of one question's store query (`--dump`): each
    signal's chunks (score, slug, kind, chunk), the BM25 coverage, the
    relevant pages, the question's words (no page text)."""
    return {
        "text": q.text,
        "kind": q.kind,
        "relevant": sorted(q.relevant),
        "coverage": coverage,
        "signals": {
            name: [
                (h.score, str(h.payload["slug"]), h.payload.get("kind"), h.payload.get("chunk"))
                for h in hits
            ]
            for name, hits in signals.items()
        },
    }


def run(args: argparse.Namespace, models: Models) -> dict[str, Any]:
    report: dict[str, Any] = {"half": args.half}
    for name in args.sets.split(","):
        rows: dict[str, list[dict[str, float]]] = defaultdict(list)
        dumped: list[dict[str, Any]] | None = [] if args.dump else None
        seen = 0
        with tempfile.TemporaryDirectory() as scratch:
            for c, corpus in enumerate(SETS[name](args.data)):
                chosen = []
                for q in corpus.questions:
                    seen += 1
                    if args.half == "all" or (seen % 2 == 0) == (args.half == "even"):
                        chosen.append(q)
                if args.limit and len(rows["all"]) >= args.limit:
                    break
                if not chosen:
                    continue
                settings, index, _ = build_pages(Path(scratch, str(c)), corpus.pages, models)
                injector = Injector(settings, index)
                others = variant_injectors(settings, index, args.card_variant)
                budget = settings.v3.card_budget_chars
                for n, q in enumerate(chosen):
                    row = score(index, injector, q, budget, others, dumped)
                    for group in ("all", q.kind, *(["paraphrase"] if paraphrased(q) else [])):
                        rows[group].append(row)
                    again = rewritten(q) if n % 2 == 0 else None
                    if again is not None:
                        rows["rewritten"].append(
                            score(index, injector, again, budget, others, dumped)
                        )
                    bare = unshared(q, corpus.pages)
                    if bare is not None:
                        rows["unshared"].append(
                            score(index, injector, bare, budget, others, dumped)
                        )
                index.store.close()
                print(f"{name} {corpus.name}: {len(rows['all'])} questions", file=sys.stderr)
        report[name] = {g: means(r) for g, r in sorted(rows.items())}
        if args.dump and dumped is not None:
            args.dump.mkdir(parents=True, exist_ok=True)
            with gzip.open(args.dump / f"{name}-{args.half}.json.gz", "wt") as out:
                json.dump(dumped, out)
        print(json.dumps({name: report[name]["all"]}), file=sys.stderr)
    return report


def card_variant(spec: str) -> tuple[str, str]:
    return named_toml(spec, "memory.v3", "--card-variant")


def means(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    out = {k: round(statistics.fmean(r[k] for r in rows if k in r), 3) for k in keys}
    return out | {"n": len(rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--half", choices=("all", "even", "odd"), default="all")
    parser.add_argument("--limit", type=int, default=0, help="about this many questions a set")
    parser.add_argument(
        "--card-variant",
        action="append",
        default=[],
        type=card_variant,
        metavar="NAME=TOML",
        help="a card with other `memory.v3` settings (`;` between lines), scored beside",
    )
    parser.add_argument(
        "--dump", type=Path, help="write each set's store queries here (bench/fusion_fit.py)"
    )
    args = parser.parse_args()
    print(json.dumps(run(args, load_models()), indent=1))


if __name__ == "__main__":
    main()
