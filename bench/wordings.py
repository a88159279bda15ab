"""What the memory learns follows meaning, not wording: does a newer statement
replace or end the fact it changes, and leave alone every fact it does not?

    python bench/wordings.py ../shared/data [--show N] [--no-head]

Each case is an older fact current on its page and a newer statement, read
and decided by the product's own code: `meaning.read_text` (whose words,
about whom, which slot, what kind of statement), the family head over the
shipped USE embedding (`meaning.typing`; `--no-head`: the rules alone), and
`lifecycle.decide`. Cases (`bench/wordings_data.py` and `../shared/data`):

- **changes** (should replace): a family's value, then an everyday way of
  saying it changed, English and Arabic ("we finally got the keys to our flat
  in Leith", "I'm now head of data at Kestrel", "Iona's moved down to
  Bristol", "I've gone off Earl Grey, it's black coffee every morning now");
- **cessations** (should retract): a value, then a statement that it ended,
  naming it ("I left Brightwater", "I sold my Fiat", "لم أعد أسكن في …");
- **wrong retractions** (should keep): a cessation naming another value, or
  one dated before the fact it names (a newer fact is never ended);
- **wrong supersessions** (should keep): a change of another family, a
  topical sentence of the same family, and LongMemEval's and LoCoMo's
  consecutive statements that share little;
- **passed on** (should keep, and be read as passed on): a change put into
  someone else's words, into text to transform, or into a supposition;
- **longmemeval**: the knowledge-update questions' evidence sentences (the
  older and newer one sharing the most content words), as positives, less
  the pairs labelled by hand as no update (`LME_NOT_UPDATES`).

Templates alternate between halves, LongMemEval and LoCoMo by question and
conversation: rules and the head are chosen on `dev`, figures reported on
`held`. Reported per half: supersession recall (changes, cessations and
LongMemEval's updates),
wrong supersessions and wrong retractions (shares of their cases), passed-on
texts read as the person's (a count), and the first wordings set (`classic`).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

from capture import statements
from wordings_data import CLASSIC, FAMILIES, LME_NOT_UPDATES, PASSED_ON_AR, PASSED_ON_EN, half_of

from substrate.consolidation.lifecycle import decide
from substrate.meaning import read_text
from substrate.meaning.sentences import sentence_pieces
from substrate.meaning.slots import SlotReading
from substrate.meaning.typing import FamilyHead, typed
from substrate.pages import FactBullet

WORD = re.compile(r"[a-z0-9']+")
STOP = set(
    "a an the of to in on at for and or is are was were be been i my me it this that i'm i've "
    "so but by with from as just have has had do did you your we our".split()
)
OLD_DAY, NEW_DAY, LATER_DAY = date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)
# A case: (older fact, newer statement, what should happen, set, half, the older
# fact dated after the newer statement).
Case = tuple[str, str, str, str, str, bool]
REPLACE, RETRACT, KEEP = "replace", "retract", "keep"


class Reader:
    """The product's reading of a statement, with or without the family head."""

    def __init__(self, head: FamilyHead | None) -> None:
        self._head = head
        self._cache: dict[str, SlotReading] = {}

    def __call__(self, text: str) -> SlotReading:
        if text not in self._cache:
            self._cache[text] = typed(read_text(text), self._head)
        return self._cache[text]


def outcome(case: Case, read: Reader) -> str:
    old, new, _, _, _, later = case
    before = FactBullet("aaaaaaaaaaaa", LATER_DAY if later else OLD_DAY, old, slot=read(old).slot)
    after = FactBullet("bbbbbbbbbbbb", NEW_DAY, new)
    action = decide(after, read(new), [before]).action
    return {"update": REPLACE, "retract": RETRACT}.get(action, KEEP)


def content(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def overlap(a: str, b: str) -> float:
    x, y = content(a), content(b)
    return len(x & y) / max(1, len(x | y))


def lower(text: str) -> str:
    return text[0].lower() + text[1:] if text[:2] != "I " and text[:2] != "I'" else text


def everyday() -> list[Case]:
    cases: list[Case] = []
    for n, family in enumerate(FAMILIES):
        first = family.first[0]
        for j, change in enumerate(family.change):
            for old, new in family.values:
                cases.append((first.format(v=old), change.format(v=old, w=new), REPLACE,
                              "changes", half_of(j), False))  # fmt: skip
        for j, ended in enumerate(family.ended):
            half = half_of(j)
            (a, b), (c, _) = family.values[0], family.values[1]
            cases.append((first.format(v=a), ended.format(v=a), RETRACT, "cessations", half, False))
            cases.append(
                (first.format(v=c), ended.format(v=a), KEEP, "wrong_retractions", half, False)
            )
            cases.append(
                (first.format(v=a), ended.format(v=a), KEEP, "wrong_retractions", half, True)
            )
        for j, topical in enumerate(family.topical):
            cases.append((first.format(v=family.values[0][0]), topical, KEEP,
                          "wrong_supersessions", half_of(j), False))  # fmt: skip
        other = next(
            (
                f
                for f in FAMILIES[n + 1 :] + FAMILIES[:n]
                if f.lang == family.lang and f.name != family.name
            ),
            None,
        )
        if other is not None:
            for j, change in enumerate(other.change):
                a, b = other.values[0]
                cases.append((first.format(v=family.values[0][0]), change.format(v=a, w=b), KEEP,
                              "wrong_supersessions", half_of(j), False))  # fmt: skip
        frames = PASSED_ON_EN if family.lang == "en" else PASSED_ON_AR
        for j, frame in enumerate(frames):
            change = family.change[j % len(family.change)]
            a, b = family.values[j % len(family.values)]
            inner = change.format(v=a, w=b)
            cases.append((first.format(v=a), frame.format(inner=inner, lower=lower(inner)), KEEP,
                          "passed_on", half_of(j), False))  # fmt: skip
    return cases


def classic() -> list[Case]:
    cases: list[Case] = []
    for n, (_, olds, news, values) in enumerate(CLASSIC):
        for j, new in enumerate(news):
            for (v, w), old in itertools.product(values, olds):
                cases.append(
                    (old.format(v=v), new.format(v=v, w=w), REPLACE, "classic", half_of(j), False)
                )
            other = CLASSIC[(n + 1) % len(CLASSIC)]
            if {other[0], CLASSIC[n][0]} == {"employer", "role"}:
                continue  # one family now: a new job replaces the role too
            v, w = other[3][0]
            cases.append((other[1][0].format(v=v), new.format(v=values[0][0], w=values[0][1]), KEEP,
                          "classic", half_of(j), False))  # fmt: skip
    return cases


def sentences(turn: str) -> list[str]:
    """A turn's statements (a question states nothing to supersede)."""
    pieces = [p.strip() for _, p in sentence_pieces(turn[:4000])]
    return [p for p in pieces if len(content(p)) >= 3 and not p.endswith("?")]


def longmemeval(data: Path) -> list[Case]:
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        questions = [q for q in json.load(f) if q["question_type"] == "knowledge-update"]
    cases: list[Case] = []
    seen: set[tuple[str, str]] = set()
    for i, q in enumerate(questions):
        half = "dev" if i % 2 == 0 else "held"
        order = sorted(range(len(q["haystack_sessions"])), key=lambda k: q["haystack_dates"][k])
        turns = [t for k in order for t in q["haystack_sessions"][k] if t["role"] == "user"]
        marked = [t["content"] for t in turns if t.get("has_answer")]
        if len(marked) < 2:
            continue
        best = max(
            ((a, b) for a in sentences(marked[0]) for b in sentences(marked[-1])),
            key=lambda ab: overlap(*ab),
            default=None,
        )
        if best is None or best in seen or overlap(*best) < 0.2:
            continue
        seen.add(best)
        if q["question_id"] not in LME_NOT_UPDATES:
            cases.append((best[0], best[1], REPLACE, "longmemeval", half, False))
        others = [s for t in turns if not t.get("has_answer") for s in sentences(t["content"])]
        unrelated = [s for s in others if overlap(s, best[1]) < 0.1]
        if unrelated:
            cases.append((unrelated[0], best[1], KEEP, "wrong_supersessions", half, False))
    return cases


def locomo(data: Path, per_speaker: int = 60) -> list[Case]:
    cases: list[Case] = []
    for i, sample in enumerate(json.loads((data / "locomo10.json").read_text())):
        half = "dev" if i % 2 == 0 else "held"
        said: dict[str, list[str]] = {}
        conv = sample["conversation"]
        for key in sorted(
            k for k in conv if k.startswith("session_") and isinstance(conv[k], list)
        ):
            for turn in conv[key]:
                for s in statements(turn["text"][:2000]):
                    said.setdefault(turn["speaker"], []).append(s.text)
        for texts in said.values():
            for old, new in list(itertools.pairwise(texts))[:per_speaker]:
                cases.append((old, new, KEEP, "wrong_supersessions", half, False))
    return cases


def scored(cases: list[Case], read: Reader) -> dict[str, Any]:
    sets: dict[str, list[bool]] = defaultdict(list)
    passed_as_own = 0
    for case in cases:
        got = outcome(case, read)
        kind, expected = case[3], case[2]
        sets[kind].append(got == expected)
        if kind == "passed_on" and (not read_text(case[1]).passed_on or got != KEEP):
            passed_as_own += 1
    out: dict[str, Any] = {}
    positives = sets["changes"] + sets["cessations"] + sets["longmemeval"]
    if positives:
        out["supersession_recall"] = round(sum(positives) / len(positives), 3)
    for kind in ("changes", "cessations", "longmemeval", "classic"):
        if sets[kind]:
            out[f"{kind}_right"] = round(sum(sets[kind]) / len(sets[kind]), 3)
    for kind in ("wrong_supersessions", "wrong_retractions"):
        if sets[kind]:
            out[kind] = round(1 - sum(sets[kind]) / len(sets[kind]), 4)
    out["passed_on_read_as_the_persons"] = passed_as_own
    out["cases"] = {k: len(v) for k, v in sorted(sets.items())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--show", type=int, default=0, help="misses to print per set (dev half)")
    parser.add_argument("--no-head", action="store_true", help="the rules alone")
    args = parser.parse_args()
    head = None
    if not args.no_head:
        from substrate.index.use_embedder import shared_use

        head = FamilyHead(shared_use().embed_query)
    read = Reader(head)
    cases = [*everyday(), *classic(), *longmemeval(args.data), *locomo(args.data)]
    report: dict[str, Any] = {"head": head is not None}
    for half in ("dev", "held"):
        report[half] = scored([c for c in cases if c[4] == half], read)
    for lang in ("en", "ar"):
        arabic = [c for c in cases if c[3] in ("changes", "cessations") and _arabic(c[1])]
        chosen = arabic if lang == "ar" else [c for c in cases if c not in arabic]
        report[f"held_{lang}"] = scored([c for c in chosen if c[4] == "held"], read)
    if args.show:
        shown: dict[str, int] = defaultdict(int)
        misses = []
        for case in cases:
            if case[4] != "dev" or shown[case[3]] >= args.show:
                continue
            got = outcome(case, read)
            if got != case[2]:
                shown[case[3]] += 1
                misses.append(
                    f"{case[3]} want {case[2]} got {got}: {case[0][:70]} -> {case[1][:90]}"
                )
        report["dev_misses"] = misses
    print(json.dumps(report, indent=1, ensure_ascii=False))


def _arabic(text: str) -> bool:
    return any("\u0600" <= ch <= "\u06ff" for ch in text)


if __name__ == "__main__":
    main()
