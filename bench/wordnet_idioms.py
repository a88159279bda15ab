"""Build the table of verbs of ending that are more than one word, from WordNet.

    python bench/wordnet_idioms.py /usr/share/wordnet            # write the table
    python bench/wordnet_idioms.py /usr/share/wordnet --dry-run  # counts only

The meaning room reads an end by its predicate's class (`events.END`): "sold",
"broke up", "quit". People also end things with idioms and phrasal verbs no
list of ours names: "Marcus and I called it a day", "I've thrown in the towel
on the allotment", "bowed out of the choir". WordNet files many under the
verbs of ending: "call it a day" and "call it quits" under "discontinue",
"kick the bucket" under "die", "throw in the towel" under "give up". This
script reads WordNet 3.0's verb files (the `wordnet-base` package installs them
under `/usr/share/wordnet`), and writes every verb of more than one word whose
commonest sense falls under an anchor synset of ending (its own, or a
hypernym's), with the irregular forms of their first words (`verb.exc`), to
`substrate/meaning/model/end_idioms.json`; `meaning/idioms.py` is its one
reader, so the product never needs WordNet installed.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved
(the license lets it be used, copied and distributed with this notice; it is
repeated in the table).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wordnet_families import LICENSE, ancestors, read_hypernyms, read_index

OUT = Path(__file__).resolve().parent.parent / "substrate/meaning/model/end_idioms.json"
# The synsets of ending, by lemma and sense number: to die; to stop doing
# (discontinue, give up, quit); to leave a post (resign); to end a bond (split
# up); to sell; to abandon; to call off; to give up in defeat. Not "end" or "terminate": under them
# WordNet files completing a thing ("carry out", "follow up", "go all out").
ANCHORS = (
    ("die", 1),
    ("discontinue", 1),
    ("resign", 2),
    ("split_up", 3),
    ("sell", 1),
    ("abandon", 2),
    ("cancel", 1),
    ("give_up", 3),
)
# Idioms only: a verb and its own object ("call it a day", "kick the bucket").
# A verb and its particle is the parse's predicate, which `events.END` lists
# where it ends something; WordNet's phrasal verbs under these heads hold
# senses far from an end ("sign off", "shut off", "top out").
WORDS = 3


def read_irregular(folder: Path) -> dict[str, list[str]]:
    """Each base form's irregular inflections ("throw": threw, thrown)."""
    out: dict[str, list[str]] = {}
    for line in (folder / "verb.exc").read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) == 2:
            out.setdefault(parts[1], []).append(parts[0])
    return out


def build(folder: Path) -> tuple[list[str], dict[str, list[str]]]:
    index = read_index(folder, "verb")
    ups = read_hypernyms(folder, "verb")
    heads = {index[lemma][sense - 1] for lemma, sense in ANCHORS}
    idioms = sorted(
        lemma.replace("_", " ")
        for lemma, offsets in index.items()
        if len(lemma.replace("-", "_").split("_")) >= WORDS
        and offsets
        and ancestors(offsets[0], ups) & heads
    )
    irregular = read_irregular(folder)
    firsts = {i.split()[0] for i in idioms}
    return idioms, {w: sorted(irregular[w]) for w in sorted(firsts) if w in irregular}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wordnet", type=Path, help="the folder holding index.verb and data.verb")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if not (args.wordnet / "index.verb").is_file():
        print(f"wordnet: no index.verb in {args.wordnet}", file=sys.stderr)
        return 2
    idioms, irregular = build(args.wordnet)
    print(f"{len(idioms)} verbs of ending of more than one word")
    if not args.dry_run:
        doc = {
            "source": "WordNet 3.0",
            "license": LICENSE,
            "anchors": ANCHORS,
            "idioms": idioms,
            "irregular": irregular,
        }
        OUT.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
        print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
