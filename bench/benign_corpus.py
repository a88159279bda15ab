"""Build the scanner's benign development corpus: text that looks like users'.

    python bench/benign_corpus.py    # writes bench/data/benign_corpus.jsonl.gz

Kinds (what `bench/scanner.py` reports false positives for):

- `technical`: command notes and documentation harvested from this machine
  (`benign_machine`: man pages, `--help`, `/usr/share/doc`, Python
  docstrings, Debian package descriptions);
- `chat`: user turns of LoCoMo and LongMemEval (`../shared/data`) and
  first-person statements we wrote;
- `email`, `personal`: transactional e-mails and personal notes we wrote
  (`benign_written`);
- `arabic`: Arabic e-mails, notes, chat statements and command notes we
  wrote, and sentences of XQuAD's Arabic paragraphs.

Every row is `{text, kind, origin, doc, part}`; `part` ("train" / "report")
is dealt by document (a man page, a package, a conversation, a template), so
what the detector and the rules are tuned on never shares a document with
what they are reported on. Deterministic: a fixed seed, sorted inputs. The
file is committed: other machines have other packages, and the figures must
be on the same texts.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import benign_machine
import benign_written

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "benign_corpus.jsonl.gz"
SHARED = HERE.parents[1] / "shared" / "data"
SEED = 20261202
CAPS = {"technical": 4000, "chat": 2200, "arabic": 600}
_AR_SENTENCE = re.compile(r"(?<=[.!؟?])\s+")


def part_of(doc: str) -> str:
    return "train" if zlib.crc32(doc.encode("utf-8")) % 2 == 0 else "report"


def technical(rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    gcloud = 0
    for origin, doc, text in benign_machine.everything(rng):
        if not 12 <= len(text) <= 1200 or len(text.split()) < 3:
            continue
        if "gcloud" in doc:  # one SDK ships thousands of near-identical pages
            gcloud += 1
            if gcloud > 150:
                continue
        rows.append({"text": text, "kind": "technical", "origin": origin, "doc": doc})
    return rows


def chat() -> list[dict[str, Any]]:
    rows = []
    locomo = json.loads((SHARED / "locomo10.json").read_text("utf-8"))
    for i, conv in enumerate(locomo):
        for key, session in conv["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                for turn in session:
                    rows.append(
                        {
                            "text": turn["text"],
                            "kind": "chat",
                            "origin": "locomo",
                            "doc": f"locomo:{i}",
                        }
                    )
    with gzip.open(SHARED / "longmemeval" / "longmemeval_oracle.json.gz", "rt") as f:
        lme = json.load(f)
    for i, question in enumerate(lme):
        for session in question["haystack_sessions"]:
            for message in session:
                if message["role"] == "user" and len(message["content"]) <= 1500:
                    doc = f"longmemeval:{i}"
                    rows.append(
                        {
                            "text": message["content"],
                            "kind": "chat",
                            "origin": "longmemeval",
                            "doc": doc,
                        }
                    )
    return rows


def xquad_arabic() -> list[dict[str, Any]]:
    data = json.loads((SHARED / "xquad" / "xquad.ar.json").read_text("utf-8"))["data"]
    rows = []
    for i, article in enumerate(data):
        for paragraph in article["paragraphs"][:2]:
            for sentence in _AR_SENTENCE.split(paragraph["context"])[:3]:
                if len(sentence.split()) >= 5:
                    doc = f"xquad-ar:{i}"
                    rows.append({"text": sentence, "kind": "arabic", "origin": "xquad", "doc": doc})
    return rows


def build() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    rows = technical(rng) + chat() + xquad_arabic()
    for kind, doc, text in benign_written.written(rng):
        group, _, _sub = kind.partition(":")
        rows.append({"text": text, "kind": group, "origin": "written", "doc": doc})
    seen: set[str] = set()
    unique = []
    for row in rows:
        key = " ".join(row["text"].lower().split())
        if key not in seen:
            seen.add(key)
            unique.append(row)
    out = []
    for kind in ("technical", "chat", "email", "personal", "arabic"):
        of_kind = [r for r in unique if r["kind"] == kind]
        written = [r for r in of_kind if r["origin"] == "written"]
        found = [r for r in of_kind if r["origin"] != "written"]
        cap = CAPS.get(kind, len(found)) - len(written)
        chosen = written + rng.sample(found, min(max(cap, 0), len(found)))
        out += [{**r, "part": part_of(r["doc"])} for r in chosen]
    return out


def main() -> None:
    rows = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    OUT.write_bytes(gzip.compress(body.encode("utf-8"), mtime=0))
    counts = Counter((r["kind"], r["part"]) for r in rows)
    for kind in ("technical", "chat", "email", "personal", "arabic"):
        print(f"{kind:10s} train {counts[kind, 'train']:5d}  report {counts[kind, 'report']:5d}")
    print(
        f"# wrote {OUT.relative_to(HERE.parent)} ({OUT.stat().st_size // 1024} KB, {len(rows)} texts)"
    )


if __name__ == "__main__":
    main()
