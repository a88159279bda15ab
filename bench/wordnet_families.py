"""Build the noun families table from WordNet's hypernyms.

    python bench/wordnet_families.py /usr/share/wordnet            # write the table
    python bench/wordnet_families.py /usr/share/wordnet --dry-run  # counts only

The meaning room types a thing by what it is (`substrate/meaning/nouns.py`):
a flat, a bungalow or a houseboat is a home, a Skoda or a tandem a vehicle, a
dachshund a pet, sertraline or ramipril a medication, a latte or a stout a
drink, and a paralegal or a bookkeeper a job. Lists name a few; WordNet's
hypernyms name every noun under those heads. This script reads WordNet 3.0's
own database files (the `wordnet-base` package installs them under
`/usr/share/wordnet`; any copy of `index.noun` and `data.noun` will do) and
writes, for every noun whose commonest senses fall under a family's anchor
synsets, that family, to `substrate/meaning/model/noun_families.json`, so the
product reads a small table and never needs WordNet installed.

A noun's family is the family of its first sense (WordNet orders senses by
how often they are used): "terrace" (a patio first) is no home, and "head" (a
body part first, a head of cattle second) is no animal; a rarer sense types
nothing. The anchors are WordNet's own
heads, named by lemma and sense number; what falls under them is WordNet's.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved
(the license lets it be used, copied and distributed with this notice; it is
repeated in the table).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import deque
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "substrate/meaning/model/noun_families.json"
# family -> the anchor synsets (lemma, sense number) whose hyponyms belong to
# it, in the order a noun under two of them is typed
ANCHORS: dict[str, tuple[tuple[str, int], ...]] = {
    "home": (("dwelling", 1), ("housing", 1)),
    "vehicle": (("motor_vehicle", 1), ("bicycle", 1)),
    "pet": (("animal", 1),),
    "drink": (("beverage", 1),),  # before medication: a beer is a drug of abuse too
    "medication": (("drug", 1), ("antacid", 1), ("contraceptive", 1)),
    "role": (
        ("worker", 1),
        ("professional", 1),
        ("businessperson", 1),
        ("expert", 1),
        ("leader", 1),
    ),
}
SENSES = 1
LICENSE = (
    "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. "
    "Permission to use, copy, modify and distribute this software and database "
    "and its documentation for any purpose and without fee or royalty is hereby "
    "granted, provided that this notice appears on all copies."
)


def read_index(folder: Path, part: str = "noun") -> dict[str, list[str]]:
    """Each lemma's synset offsets for a part of speech (`noun`, `verb`),
    commonest sense first."""
    out: dict[str, list[str]] = {}
    for line in (folder / f"index.{part}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" ") or not line.strip():
            continue
        parts = line.split()
        pointers = int(parts[3])
        senses = int(parts[2])
        out[parts[0]] = parts[4 + pointers + 2 : 4 + pointers + 2 + senses]
    return out


def read_hypernyms(folder: Path, part: str = "noun") -> dict[str, list[str]]:
    """Each synset's hypernyms (of its own part of speech), instance hypernyms
    included."""
    pos = part[0]
    out: dict[str, list[str]] = {}
    for line in (folder / f"data.{part}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" ") or not line.strip():
            continue
        fields = line.split(" | ")[0].split()
        words = int(fields[3], 16)
        at = 4 + 2 * words
        count = int(fields[at])
        ups = []
        for i in range(count):
            symbol, offset, kind, _ = fields[at + 1 + 4 * i : at + 5 + 4 * i]
            if symbol in ("@", "@i") and kind == pos:
                ups.append(offset)
        out[fields[0]] = ups
    return out


def ancestors(offset: str, ups: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    queue = deque([offset])
    while queue:
        at = queue.popleft()
        if at not in seen:
            seen.add(at)
            queue.extend(ups.get(at, []))
    return seen


def build(folder: Path) -> dict[str, str]:
    index = read_index(folder)
    ups = read_hypernyms(folder)
    anchors = {
        family: {index[lemma][sense - 1] for lemma, sense in heads}
        for family, heads in ANCHORS.items()
    }
    table: dict[str, str] = {}
    for lemma, offsets in index.items():
        for offset in offsets[:SENSES]:
            above = ancestors(offset, ups)
            found = [family for family, heads in anchors.items() if above & heads]
            if found:
                table[lemma.replace("_", " ")] = found[0]
                break
    return dict(sorted(table.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wordnet", type=Path, help="the folder holding index.noun and data.noun")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if not (args.wordnet / "index.noun").is_file():
        print(f"wordnet: no index.noun in {args.wordnet}", file=sys.stderr)
        return 2
    table = build(args.wordnet)
    counts: dict[str, int] = {}
    for family in table.values():
        counts[family] = counts.get(family, 0) + 1
    for family, n in sorted(counts.items()):
        print(f"{family:12} {n:6}")
    if not args.dry_run:
        doc = {"source": "WordNet 3.0", "license": LICENSE, "anchors": ANCHORS, "nouns": table}
        OUT.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
        print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
