"""Everyday wordings written by someone outside the team, end to end: does what
the memory holds as current after a newer statement match what the person
meant?

    python bench/wordings_dev.py ../shared/data [--kind K] [--lang L] [--limit N]
        [--show N] [--json FILE]

Each case of `wordings-dev/cases.jsonl` runs in a fresh workspace through the
product's own write path: the older facts are remembered on one day and
consolidated (the filer, the search index and a re-index after each run, as
`memory consolidate` does), then the newer statement a month later, and
consolidated again. Every page's current facts are then read back and judged
by the case's markers (verbatim substrings, see the set's README):

- `change`: a current fact holds `new_marker`, none holds `old_marker`;
- `retraction`: no current fact holds `gone_marker` (when it is null, the
  statement ends nothing), and each of `kept` (or `kept_marker`) stays current;
- `passed_on`: `kept_marker` stays current and no fact on the person's own
  pages (`me/…`) holding `foreign_marker` is current;
- `own_beside_foreign`: `gone_marker` is no longer current, `new_marker` is,
  and `foreign_marker` is on none of the person's own pages;
- `about_other`: `kept_marker` stays current and `other_marker` is not on the
  person's own pages.

Beside the pass rate by kind and language it counts wrong supersessions
(a fact the case keeps that was ended, over all such facts), page titles
that name no subject (`subjectless`: `title_problem`, or an Arabic title
whose first word the analyser reads as a verb), and entities with two pages
(two pages whose folded titles are the same).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from filing import load_models, workspace

from substrate import load_page_index, remember
from substrate.consolidation import consolidate_all
from substrate.index import EdgeStore, SearchIndex
from substrate.meaning.arabic import has_arabic, verb_lemma
from substrate.meaning.words import title_problem
from substrate.pages import fact_bullets

OLD_AT = datetime(2025, 3, 1, 9, 0)
NEW_AT = OLD_AT + timedelta(days=30)


def facts_now(settings: Any) -> list[tuple[str, str, bool]]:
    """(slug, fact text, current) for every fact on every page."""
    index = load_page_index(settings.workspace)
    out = []
    for entry in index.entries.values():
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        for bullet in fact_bullets(text):
            out.append((entry.slug, bullet.text, bullet.current))
    return out


def subjectless(title: str) -> bool:
    """A title that names no subject: `title_problem` says so, or, in Arabic,
    its first word is one the analyser reads as a verb ("رجعت آكل …"). An
    English title's first word is not judged by the parse: a lone name
    ("Walthamstow", "Mum") parses as a verb as often as a verb does. The
    person's own topic pages (`me/…`) and the inbox are the product's own
    titles and are not checked."""
    if title_problem(title) is not None:
        return True
    words = title.split()
    return not words or (has_arabic(words[0]) and verb_lemma(words[0]) != "")


def titles(settings: Any) -> list[str]:
    index = load_page_index(settings.workspace)
    return [e.title for e in index.entries.values() if not e.slug.startswith(("me/", "inbox/"))]


def holds(facts: list[tuple[str, str, bool]], marker: str | None, *, own: bool = False) -> bool:
    """A current fact holds `marker` (on the person's own pages only, with `own`);
    a case with no marker (null in the set) has nothing to hold."""
    if marker is None:
        return False
    fold = marker.casefold()
    return any(
        current and fold in text.casefold() and (not own or slug.startswith("me/"))
        for slug, text, current in facts
    )


def was_there(facts: list[tuple[str, str, bool]], marker: str) -> bool:
    fold = marker.casefold()
    return any(fold in text.casefold() for _, text, _ in facts)


def judge(case: dict[str, Any], facts: list[tuple[str, str, bool]]) -> tuple[bool, int, int]:
    """(the case holds, facts kept that should be, facts that should be kept)."""
    kind = case["kind"]
    kept = [m for m in case.get("kept") or [case.get("kept_marker")] if m]
    kept_ok = sum(1 for m in kept if holds(facts, m) or not was_there(facts, m))
    if kind == "change":
        ok = holds(facts, case["new_marker"]) and not holds(facts, case["old_marker"])
        return ok, 0, 0
    if kind == "retraction":
        gone = case.get("gone_marker")
        ok = (gone is None or not holds(facts, gone)) and kept_ok == len(kept)
        return ok, kept_ok, len(kept)
    if kind == "passed_on":
        ok = kept_ok == len(kept) and not holds(facts, case["foreign_marker"], own=True)
        return ok, kept_ok, len(kept)
    if kind == "own_beside_foreign":
        ok = (
            not holds(facts, case["gone_marker"])
            and holds(facts, case["new_marker"])
            and not holds(facts, case["foreign_marker"], own=True)
        )
        return ok, 0, 0
    if kind == "about_other":
        ok = kept_ok == len(kept) and not holds(facts, case["other_marker"], own=True)
        return ok, kept_ok, len(kept)
    raise ValueError(f"unknown kind {kind!r}")


def olds_of(case: dict[str, Any]) -> list[str]:
    return [case["old"]] if case["kind"] == "change" else list(case["facts"])


def news_of(case: dict[str, Any]) -> str:
    return str(case["new"] if case["kind"] == "change" else case["say"])


@lru_cache(maxsize=4096)
def sentence_vector(text: str) -> Any:
    """The product's sentence embedder, as the composition root gives it
    (`Settings.embed`: the family head and capture's judge read it)."""
    from substrate.index.use_embedder import shared_use

    return shared_use().embed_query(text)


def run_case(case: dict[str, Any], models: Any, root: Path) -> dict[str, Any]:
    settings = replace(workspace(root), embed=sentence_vector)
    index = SearchIndex(settings, models[0], EdgeStore(root / ".substrate/qdrant"), models[1])
    index.maintain()
    for n, text in enumerate(olds_of(case)):
        remember(settings, text, now=OLD_AT + timedelta(minutes=n))
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    started = time.perf_counter()
    remember(settings, news_of(case), now=NEW_AT)
    remembered = time.perf_counter() - started
    started = time.perf_counter()
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    filed = time.perf_counter() - started
    facts = facts_now(settings)
    ok, kept_ok, kept_all = judge(case, facts)
    named = titles(settings)
    folded = [" ".join(t.casefold().split()) for t in named]
    return {
        "ok": ok,
        "kept_ok": kept_ok,
        "kept_all": kept_all,
        "bad_titles": [t for t in named if subjectless(t)],
        "twice": len(folded) - len(set(folded)),
        "facts": facts,
        "remember_s": remembered,
        "consolidate_s": filed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--kind")
    parser.add_argument("--lang")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="print N failing cases")
    parser.add_argument("--json", type=Path, help="write every case's outcome here")
    args = parser.parse_args()
    cases = [json.loads(line) for line in (args.data / "wordings-dev/cases.jsonl").open()]
    cases = [
        c
        for c in cases
        if (args.kind is None or c["kind"] == args.kind)
        and (args.lang is None or c["lang"] == args.lang)
    ]
    if args.limit:
        cases = cases[: args.limit]
    models = load_models()
    by: dict[tuple[str, str], list[bool]] = defaultdict(list)
    kept = [0, 0]
    bad: list[str] = []
    twice = 0
    rows = []
    shown = 0
    for n, case in enumerate(cases):
        with tempfile.TemporaryDirectory() as tmp:
            out = run_case(case, models, Path(tmp))
        by[(case["kind"], case["lang"])].append(out["ok"])
        kept[0] += out["kept_ok"]
        kept[1] += out["kept_all"]
        bad += out["bad_titles"]
        twice += out["twice"]
        rows.append({**case, **{k: v for k, v in out.items()}})
        if not out["ok"] and shown < args.show:
            shown += 1
            print(json.dumps(case, ensure_ascii=False), file=sys.stderr)
            for slug, text, current in out["facts"]:
                print(f"   {'*' if current else ' '} {slug}: {text}", file=sys.stderr)
        print(f"\r{n + 1}/{len(cases)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{'kind':<20}{'lang':<6}{'cases':>6}{'holds':>8}")
    for kind in ("change", "retraction", "passed_on", "own_beside_foreign", "about_other"):
        for lang in ("en", "ar"):
            got = by.get((kind, lang))
            if got:
                print(f"{kind:<20}{lang:<6}{len(got):>6}{sum(got) / len(got):>8.3f}")
    every = [ok for got in by.values() for ok in got]
    print(f"{'all':<26}{len(every):>6}{sum(every) / max(1, len(every)):>8.3f}")
    wrong = 1 - kept[0] / kept[1] if kept[1] else 0.0
    print(f"wrong supersessions: {kept[1] - kept[0]} of {kept[1]} kept facts ({wrong:.3f})")
    print(f"titles naming no subject: {len(bad)} {bad[:8]}")
    print(f"entities with two pages: {twice}")
    print(
        "remember p50 ms: "
        f"{statistics.median(r['remember_s'] for r in rows) * 1000:.1f}; "
        "consolidation s per statement p50: "
        f"{statistics.median(r['consolidate_s'] for r in rows):.3f}"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
