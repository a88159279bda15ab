"""Capture hears only the person: first-person statements from the dev sets,
passed on in someone else's voice (quoted, forwarded, pasted, given to
transform, code, reported speech), must never be captured.

    python bench/voices.py ../shared/data [--statements 150]

The statements are what the offline extractor (rules and judge) captures from
LongMemEval's and LoCoMo's own user turns, sampled with a fixed seed. Each is
wrapped in every wording below and read by capture's extractor; a wrapped
turn *leaks* when a captured statement holds at least 80% of the wrapped
statement's content words. Two sets of wordings: `dev` (the ones the skip
rules were written against) and `held` (written before the rules were run on
them: the rule for "…posted this in Slack:" came after their first report)
and `fresh` (written after that, reported untuned). The control is each statement said directly: the
share still captured says the rules skip only what is passed on.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from pathlib import Path
from typing import Any

from capture import EXTRACTOR, statements

WORD = re.compile(r"[a-z0-9']+")
STOP = set(
    "a an the of to in on at for and or is are was were be been i my me it this that".split()
)
DEV = {
    "forwarded": ["Forwarded message from {name}: {s}"],
    "forwarded header": [
        "---------- Forwarded message ---------\nFrom: {name} <{low}@example.com>\n"
        "Subject: update\n\n{s}"
    ],
    "quoted": ["> {s}"],
    "pasted": ["Here is the email my {rel} sent me:\n{s}", "My {rel} emailed me this: '{s}'"],
    "to transform": [
        "Translate to French: {s}",
        "Can you summarise this email from my {rel}? Hi all, quick update: {s}",
        "Proofread this: {s}",
    ],
    "code": ["```\n{s}\n```"],
    "reported speech": ["{name} said {s}", "My {rel} told me that {s}"],
    "arabic": ["ترجم إلى الإنجليزية: {s}", 'قال أخي: "{s}"'],
}
HELD = {
    "forwarded": ["Fwd: {s}", "Begin forwarded message:\n\n{s}"],
    "pasted": [
        "Here's what my landlord texted me: {s}",
        "My coworker posted this in Slack:\n{s}",
        "Copied from the article: {s}",
    ],
    "to transform": [
        "Could you translate this into Spanish? {s}",
        "Please rewrite this for LinkedIn: {s}",
        "Summarize the following: {s}",
    ],
    "code": ["    {s}"],
    "quoted": ["| {s}"],
    "reported speech": ['He told me "{s}"'],
    "arabic": ["لخص هذا النص: {s}"],
}
# Written after the first report on `held` (which the colon rule then saw), and
# reported once, untuned: the wordings no rule was written against.
FRESH = {
    "forwarded": ["FW: {s}", "-----Original Message-----\nFrom: {name}\n{s}"],
    "pasted": [
        "This is what the landlord's letter says: {s}",
        "Copy of the text {name} sent: {s}",
        "Got this message from my {rel} this morning —\n{s}",
    ],
    "to transform": [
        "Put this into plain English: {s}",
        "Can you shorten this for a tweet? {s}",
        "Turn this into a formal email: {s}",
    ],
    "quoted": ['"{s}" — that\'s what {name} wrote.', "» {s}"],
    "reported speech": ["According to my {rel}, {s}", "{name} keeps saying {s}"],
    "code": ["`{s}`"],
    "arabic": ["أرسل لي صديقي هذه الرسالة: {s}", "ترجم النص التالي: {s}"],
}
NAMES = ["Bob", "Priya", "Jonas", "Mei", "Carlos"]
RELS = ["colleague", "sister", "landlord", "boss", "friend"]


def content(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def leaks(turn: str, said: str) -> bool:
    wanted = content(said)
    got: set[str] = set()
    for statement in statements(turn):
        got |= content(statement.text)
    return bool(wanted) and len(wanted & got) >= 0.8 * len(wanted)


def sources(data: Path, n: int) -> list[str]:
    """Statements the extractor captures from the dev sets' own user turns."""
    with gzip.open(data / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        lme = json.load(f)
    turns = [
        t["content"] for q in lme for s in q["haystack_sessions"] for t in s if t["role"] == "user"
    ]
    locomo = json.loads((data / "locomo10.json").read_text())
    for sample in locomo:
        conv = sample["conversation"]
        turns += [
            t["text"]
            for k, v in conv.items()
            if k.startswith("session_") and isinstance(v, list)
            for t in v
        ]
    rng = random.Random(7)
    rng.shuffle(turns)
    found: list[str] = []
    for turn in turns:
        for statement in statements(turn[:2000]):
            if len(content(statement.text)) >= 4 and statement.text not in found:
                found.append(statement.text)
        if len(found) >= n:
            break
    return found[:n]


def run(said: list[str], wordings: dict[str, list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    examples: list[str] = []
    for kind, forms in wordings.items():
        leaked = total = 0
        for i, s in enumerate(said):
            name, rel = NAMES[i % len(NAMES)], RELS[i % len(RELS)]
            for form in forms:
                turn = form.format(s=s, name=name, low=name.lower(), rel=rel)
                total += 1
                if leaks(turn, s):
                    leaked += 1
                    if len(examples) < 8:
                        examples.append(turn[:160])
        out[kind] = {"turns": total, "leaked": leaked}
    out["all"] = {
        "turns": sum(v["turns"] for v in out.values()),
        "leaked": sum(v["leaked"] for v in out.values()),
    }
    out["leak_examples"] = examples
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--statements", type=int, default=150)
    args = parser.parse_args()
    said = sources(args.data, args.statements)
    control = sum(leaks(s, s) for s in said)
    print(
        json.dumps(
            {
                "statements": len(said),
                "judge": EXTRACTOR.judge is not None,
                "control_captured": round(control / len(said), 3),
                "dev": run(said, DEV),
                "held": run(said, HELD),
                "fresh": run(said, FRESH),
            },
            indent=1,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
