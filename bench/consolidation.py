"""Consolidation against not consolidating: the same facts three ways, one run.

    python bench/consolidation.py ../shared/data/locomo10.json [--facts observations|turns]
        [--conversations 10] [--half all|even|odd] [--variant NAME=TOML ...] [--no-baselines]
    python bench/consolidation.py ../shared/data/longmemeval [--questions N] [--half ...]

The layouts (`bench/filing.py`): `consolidated` (each fact remembered with its
own date, the library call behind `memory remember --at`, then filed by
`consolidate_all` with the search index and a re-index after each run, as
`memory consolidate` does; `--variant NAME=TOML` adds one per
`[memory.substrate]` setting, `;` separating lines), `per_statement` (one page
per fact) and `per_session` (one page per session holding its facts); with
`--episodes`, `episodes` (the facts as logged conversation turns, each
session's episodes indexed, no pages) and `consolidated+episodes` (both).

**LoCoMo** (a file): one memory per conversation. `--facts observations`
(third person: the per-speaker observation facts, 2,541 with their dialog
ids) or `--facts turns` (first-person chat: every dialog turn as a cue line,
"Caroline: I went to …", 5,882). The conversation's questions (categories
1-4) are asked of each layout; a fact is relevant when its dialog ids meet the
question's evidence (questions with none are left out, counted). Scored on
what the assistant reads: `evidence_hit@5`, a relevant fact's text inside the
top 5 search excerpts; `card_evidence_hit`, inside the `<memory>` card at the
default budget (each question a fresh conversation).

**LongMemEval** (a folder): the oracle's questions, each its own user's
memory: the user turns of its evidence sessions, remembered with the
session's date. Relevant: the user turns marked `has_answer` (questions whose
evidence is only in the assistant's turns are left out, counted). Scored per
question type, knowledge-update apart: `R@5` (the share of the pages holding
an evidence turn found in the top 5), `evidence_in_card` (the best evidence
turn's content words present in the card) and `turn_in_card` (at least 80%
of them), and `answer_in_card` (the answer string, when short).

Both: facts lost (texts on no page), facts duplicated, page hygiene (titles
that are filler words or pronouns, the largest page by current facts, links
per page), and filing seconds per 100 facts with the embedding model's share
apart. `--half even|odd` keeps alternate conversations or questions: choose
settings on one half, report on the other. `--store-queries DIR` (LoCoMo):
each question's store query on the consolidated pages, written as
`DIR/consolidated-HALF.json.gz` in `bench/retrieval.py --dump`'s form, so
`bench/fusion_fit.py` replays fusion on this shape too (relevant: the pages
holding an evidence fact).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import named_toml, project_module
from filing import (
    Fact,
    Models,
    ask,
    build_consolidated,
    build_pages,
    fold,
    hygiene,
    load_models,
    merge_hygiene,
    per_session,
    per_statement,
    served_log,
    with_v3,
)
from longmemeval import turn_share
from retrieval import Question, dumped, store_query

from injector import Injector
from substrate import Settings
from substrate.consolidation.when import without_dates
from substrate.index import SearchIndex
from substrate.index.store import HISTORY
from substrate.pages import fact_bullets
from substrate.sessions import NewMessage, open_session_log
from substrate.sessions.episodes import LoggedEpisodes

episode_entries = project_module("service.maintaining").episode_entries
EPISODES = "episodes"  # the log's episodes alone, no pages
BOTH = "consolidated+episodes"  # consolidated pages and the log's episodes

EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
LME_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2})(?: \(\w+\))? (\d{2}):(\d{2})")
TURN_IN_CARD = 0.8
SHORT_ANSWER = 40  # characters: an answer this short is looked for in the card as written


def locomo_facts(sample: dict[str, Any], kind: str) -> list[tuple[Fact, set[str]]]:
    """(fact, its dialog ids) in session order: observations or dialog turns."""
    conv = sample["conversation"]
    out = []
    n = 1
    while f"session_{n}" in conv:
        when = datetime.strptime(conv[f"session_{n}_date_time"], LOCOMO_DATE).replace(tzinfo=UTC)
        if kind == "turns":
            for turn in conv[f"session_{n}"]:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                out.append((Fact(text.strip(), when, str(n)), {turn["dia_id"]}))
        else:
            for items in sample["observation"].get(f"session_{n}_observation", {}).values():
                for text, dia in items:
                    ids = {f"D{a}:{b}" for a, b in EVIDENCE.findall(str(dia))}
                    out.append((Fact(str(text).strip(), when, str(n)), ids))
        n += 1
    return out


def locomo_questions(
    sample: dict[str, Any], facts: list[tuple[Fact, set[str]]]
) -> tuple[list[Any], int]:
    out, dropped = [], 0
    for qa in sample["qa"]:
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        wanted = {f"D{a}:{b}" for ev in qa.get("evidence", []) for a, b in EVIDENCE.findall(ev)}
        texts = {fold(f.text) for f, ids in facts if ids & wanted}
        if texts:
            out.append({"q": qa["question"], "texts": texts, "type": "locomo"})
        else:
            dropped += 1
    return out, dropped


def store_queries(
    settings: Settings, index: SearchIndex, questions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each question's store query over the pages, as `bench/retrieval.py --dump`
    writes it (`--store-queries`); relevant: the pages holding an evidence fact."""
    rows = []
    for q in questions:
        relevant = page_holds(settings, q["texts"])
        if not relevant:
            continue
        vectors = index.embed_query(q["q"])
        signals, coverage = store_query(index, q["q"], vectors, ["page", HISTORY])
        rows.append(dumped(Question(q["q"], relevant, [], "turns"), signals, coverage))
    return rows


def lme_date(text: str) -> datetime:
    m = LME_DATE.match(text)
    if not m:
        raise SystemExit(f"unexpected haystack date {text!r}")
    y, mo, d, h, mi = (int(g) for g in m.groups())
    return datetime(y, mo, d, h, mi, tzinfo=UTC)


def lme_users(data: Path) -> list[dict[str, Any]]:
    """Each oracle question as one user: its evidence sessions' user turns."""
    with gzip.open(data / "longmemeval_oracle.json.gz", "rt", encoding="utf-8") as f:
        questions = json.load(f)
    users = []
    for q in questions:
        if q["question_id"].endswith("_abs"):
            continue
        facts: list[Fact] = []
        evidence: list[str] = []
        for sid, date, turns in zip(
            q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
        ):
            for turn in turns:
                if turn["role"] != "user" or not turn["content"].strip():
                    continue
                facts.append(Fact(turn["content"].strip(), lme_date(date), sid))
                if turn.get("has_answer"):
                    evidence.append(fold(turn["content"]))
        users.append({"question": q, "facts": facts, "evidence": evidence})
    return users


def said_text(fact: str) -> str:
    """A filed fact in the words said: without the dates filing adds to its
    relative times ("last month (February 2024)")."""
    return fold(without_dates(fact))


def page_holds(settings: Settings, texts: set[str]) -> set[str]:
    """The slugs of the pages holding any of `texts` (as a fact or a body line)."""
    found = set()
    for path in settings.workspace.concepts_dir.rglob("*.md"):
        page = path.read_text()
        bullets = [said_text(b.text) for b in fact_bullets(page)] or [fold(page)]
        if any(t in b for t in texts for b in bullets):
            found.add(str(path.relative_to(settings.workspace.concepts_dir).with_suffix("")))
    return found


def placed(settings: Settings, facts: list[Fact]) -> dict[str, int]:
    """Facts lost (on no page) and duplicated (on pages more often than said): a
    filed fact counts as a bullet, a fact of a naive page as its text in the body."""
    counts: Counter[str] = Counter()
    bodies: list[str] = []
    for path in settings.workspace.concepts_dir.rglob("*.md"):
        text = path.read_text()
        bullets = fact_bullets(text)
        if bullets:
            counts.update(said_text(b.text) for b in bullets)
        else:
            bodies.append(fold(text.split("\n---\n", 1)[-1]))
    said = Counter(fold(f.text) for f in facts)
    for t in said if bodies else ():
        counts[t] += sum(body.count(t) for body in bodies)
    return {
        "facts_lost": sum(1 for t in said if counts[t] == 0),
        "facts_duplicated": sum(1 for t, n in said.items() if counts[t] > n),
    }


def build(
    name: str, root: Path, facts: list[Fact], models: Models, variants: dict[str, str]
) -> tuple[Settings, SearchIndex, dict[str, float]]:
    if name == EPISODES:
        settings, index, timing = build_pages(root, {}, models)
        return settings, index, timing | log_episodes(settings, index, facts)
    if name == BOTH:
        settings, index, timing = build_consolidated(root, facts, models, variants["consolidated"])
        return settings, index, timing | log_episodes(settings, index, facts)
    if name in variants:
        return build_consolidated(root, facts, models, variants[name])
    layout = per_statement(facts) if name == "per_statement" else per_session(facts)
    return build_pages(root, layout, models)


def log_episodes(settings: Settings, index: SearchIndex, facts: list[Fact]) -> dict[str, float]:
    """The facts as the conversation log holds them (each session a logged
    session, each fact a user turn at its time), its episodes indexed beside
    whatever the workspace has, as a served workspace indexes them."""
    started = time.perf_counter()
    log = open_session_log(settings.workspace)
    for i, fact in enumerate(facts):
        message = NewMessage("user", fact.text, True)
        log.append(f"session-{fact.session}", [message], fact.at.timestamp() + i * 1e-3)
    index.maintain(episode_entries(LoggedEpisodes()(log)))
    log.close()
    return {"episode_seconds": time.perf_counter() - started}


def card_variants(args: argparse.Namespace, layout: str) -> list[tuple[str, str]]:
    """(name, `memory.v3` TOML) of each `--card-variant`, for the layouts with episodes."""
    if layout not in (EPISODES, BOTH):
        return []
    chosen = [named_toml(spec, "memory.v3", "--card-variant") for spec in args.card_variant]
    return [(f"{layout}:{name}", toml) for name, toml in chosen]


def cards_of(
    settings: Settings, index: SearchIndex, questions: list[dict[str, Any]], now: float
) -> list[str]:
    with served_log(settings) as log:
        injector = Injector(settings, index, clock=lambda: now, sessions=log)
        return [injector.assemble(q["q"]).memory for q in questions]


def run_locomo(
    args: argparse.Namespace, models: Models, variants: dict[str, str], kinds: list[str]
) -> dict[str, Any]:
    samples = json.loads(args.data.read_text())[: args.conversations]
    keep = [i for i in range(len(samples)) if args.half == "all" or i % 2 == (args.half == "odd")]
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    queries: list[dict[str, Any]] = []
    dropped = total = 0
    with tempfile.TemporaryDirectory() as scratch:
        for c in keep:
            facts = locomo_facts(samples[c], args.facts)
            questions, gone = locomo_questions(samples[c], facts)
            dropped += gone
            total += len(facts)
            plain = [f for f, _ in facts]
            now = (max(f.at for f in plain) + timedelta(days=1)).timestamp()
            for name in kinds:
                settings, index, timing = build(
                    name, Path(scratch, f"{c}-{name}"), plain, models, variants
                )
                rows[name].update(placed(settings, plain))
                rows[name].update({k: v for k, v in timing.items()})
                pages[name].append(hygiene(settings))
                excerpts, cards, top5s = ask(settings, index, [q["q"] for q in questions], now)
                if args.store_queries and name == "consolidated":
                    queries += store_queries(settings, index, questions)
                for variant, toml in card_variants(args, name):
                    tried = with_v3(settings.workspace, toml)
                    for q, card in zip(
                        questions, cards_of(tried, index, questions, now), strict=True
                    ):
                        hit = any(t in said_text(card) for t in q["texts"])
                        rows[variant]["card_evidence_hit"] += hit
                        rows[variant]["questions"] += 1
                index.store.close()
                for q, shown, card, top5 in zip(questions, excerpts, cards, top5s, strict=True):
                    shown, card, top5 = (said_text(t) for t in (shown, card, top5))
                    rows[name]["evidence_hit@5"] += any(t in shown for t in q["texts"])
                    rows[name]["card_evidence_hit"] += any(t in card for t in q["texts"])
                    rows[name]["search5_card_evidence_hit"] += any(t in top5 for t in q["texts"])
                    rows[name]["questions"] += 1
                print(f"conversation {c} {name}: {dict(rows[name])}", file=sys.stderr)
    if args.store_queries:
        args.store_queries.mkdir(parents=True, exist_ok=True)
        with gzip.open(args.store_queries / f"consolidated-{args.half}.json.gz", "wt") as out:
            json.dump(queries, out)
    report: dict[str, Any] = {
        "facts": total,
        "questions_without_relevant_fact": dropped,
        "half": args.half,
        "kind": args.facts,
    }
    for variant, _ in card_variants(args, BOTH) + card_variants(args, EPISODES):
        report[variant] = {
            "card_evidence_hit": round(
                rows[variant]["card_evidence_hit"] / rows[variant]["questions"], 3
            )
        }
    for name in kinds:
        row, n = rows[name], rows[name]["questions"]
        report[name] = {
            "facts_lost": row["facts_lost"],
            "facts_duplicated": row["facts_duplicated"],
            "evidence_hit@5": round(row["evidence_hit@5"] / n, 3),
            "card_evidence_hit": round(row["card_evidence_hit"] / n, 3),
            "search5_card_evidence_hit": round(row["search5_card_evidence_hit"] / n, 3),
            "questions": n,
            "hygiene": merge_hygiene(pages[name]),
            **_cost(row, total, name in variants),
        }
    return report


def run_longmemeval(
    args: argparse.Namespace, models: Models, variants: dict[str, str], kinds: list[str]
) -> dict[str, Any]:
    users = lme_users(args.data)
    users = [u for i, u in enumerate(users) if args.half == "all" or i % 2 == (args.half == "odd")]
    if args.types:
        users = [u for u in users if u["question"]["question_type"] in args.types.split(",")]
    users = users[: args.questions]
    scored: dict[str, dict[str, list[dict[str, float]]]] = {n: defaultdict(list) for n in kinds}
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    without = facts_total = 0
    with tempfile.TemporaryDirectory() as scratch:
        for n, user in enumerate(users):
            q = user["question"]
            if not user["evidence"]:
                without += 1
                continue
            facts = user["facts"]
            facts_total += len(facts)
            now = (max(f.at for f in facts) + timedelta(days=1)).timestamp()
            evidence = set(user["evidence"])
            for name in kinds:
                root = Path(scratch, f"{n}-{name}")
                settings, index, timing = build(name, root, facts, models, variants)
                totals[name].update(placed(settings, facts))
                totals[name].update(timing)
                pages[name].append(hygiene(settings))
                relevant = page_holds(settings, evidence)
                hits = index.search(q["question"], 5)
                _, [card], [top5] = ask(settings, index, [q["question"]], now)
                index.store.close()
                share = turn_share(card, user["evidence"])
                plain_share = turn_share(top5, user["evidence"])
                answer = str(q["answer"])
                row = {
                    "R@5": len({h.slug for h in hits} & relevant) / len(relevant)
                    if relevant
                    else 0.0,
                    "evidence_in_card": share,
                    "turn_in_card": float(share >= TURN_IN_CARD),
                    "search5_evidence_in_card": plain_share,
                }
                if len(answer) <= SHORT_ANSWER:
                    row["answer_in_card"] = float(answer.casefold() in card.casefold())
                for group in ("all", q["question_type"]):
                    scored[name][group].append(row)
                if args.dump is not None:
                    dump = {"id": q["question_id"], "type": q["question_type"], "layout": name}
                    args.dump.write(json.dumps(dump | row | {"card": card}) + "\n")
                shutil_rmtree(root)
            print(f"question {n + 1}/{len(users)} {q['question_type']}", file=sys.stderr)
    report: dict[str, Any] = {
        "questions": len(users) - without,
        "without_user_evidence": without,
        "half": args.half,
    }
    for name in kinds:
        report[name] = {group: _means(rows) for group, rows in sorted(scored[name].items())}
        report[name]["facts_lost"] = totals[name]["facts_lost"]
        report[name]["hygiene"] = merge_hygiene(pages[name])
        report[name].update(_cost(totals[name], facts_total, name in variants))
    return report


def shutil_rmtree(root: Path) -> None:
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def _means(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    out = {
        k: round(sum(r[k] for r in rows if k in r) / max(1, sum(1 for r in rows if k in r)), 3)
        for k in keys
    }
    return out | {"n": len(rows)}


def _cost(row: Counter[str], facts: int, filed: bool) -> dict[str, Any]:
    if not filed or not facts:
        return {}
    return {
        "filing_s_per_100_facts": {
            "model": round(100 * row["model_seconds"] / facts, 3),
            "rest": round(100 * (row["seconds"] - row["model_seconds"]) / facts, 3),
        }
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path, help="locomo10.json, or the longmemeval folder")
    parser.add_argument("--facts", choices=["observations", "turns"], default="observations")
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--questions", type=int, default=None)
    parser.add_argument("--half", choices=["all", "even", "odd"], default="all")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=TOML")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--card-variant",
        action="append",
        default=[],
        metavar="NAME=TOML",
        help="LoCoMo, with --episodes: the layouts with episodes asked again with these "
        "`memory.v3` settings (`;` separating lines)",
    )
    parser.add_argument(
        "--episodes",
        action="store_true",
        help=f"add `{EPISODES}` (the log's episodes alone) and `{BOTH}`",
    )
    parser.add_argument(
        "--dump", type=argparse.FileType("w"), help="LongMemEval: each question's scores and card"
    )
    parser.add_argument("--types", default="", help="LongMemEval: only these question types")
    parser.add_argument(
        "--store-queries",
        type=Path,
        help="LoCoMo: write the consolidated pages' store queries here",
    )
    args = parser.parse_args()
    variants = {"consolidated": ""} | dict(
        named_toml(v, "memory.substrate", "--variant") for v in args.variant
    )
    kinds = [*variants, *([] if args.no_baselines else ["per_statement", "per_session"])]
    kinds += [EPISODES, BOTH] if args.episodes else []
    models = load_models()
    if args.data.is_dir():
        report = run_longmemeval(args, models, variants, kinds)
    else:
        report = run_locomo(args, models, variants, kinds)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
