"""Every loop over user text is linear: time as the input doubles.

    python bench/linearity.py [--max-kib 1024] [--repeat 3]

For each learner and extractor that reads a person's text (promotion's
extractor and detectors, the offline capture extractor, echo stripping, the
scanner's rules, the profile value check, curation's evidence check, chat
import's reader, the page-move link rewriter) and each adversarial shape
(fence lines, bare newlines, one-letter words, our own tags and fixed
sentences repeated, dotted names, quotes), the input is doubled from 64 KiB
up to `--max-kib` and timed (best of `--repeat`). Prints the seconds at the
largest size, the time ratio per doubling fitted over every size (2 to the
slope of log time: one stall on this shared machine moves it little) and the
worst single step; the target is a fitted ratio <= 2.5 everywhere (a
quadratic loop shows 4).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import project_module

from substrate.curation.evidence import meaning_problem
from substrate.curation.statements import durable_statements
from substrate.profile.values import unsafe_value
from substrate.promotion import detect, extract_candidates
from substrate.safety import RULES, strip_echoes

read_conversations = project_module("ingest.chat_import").read_conversations
relinked_text = project_module("ingest.page_ops").relinked_text
UNIT = 1024
SHAPES: dict[str, str] = {
    "fence lines": "```\nx\n",
    "newlines": "\n",
    "one-letter words": "a ",
    "our tags": '<page slug="x" trust="untrusted">\n',
    "our sentences": "Pages from long-term memory chosen for this turn.\n",
    "dotted names": "a.b.c.d.e.f.g.h.i.j ",
    "statements": "I moved to Leeds. I prefer tea. ",
    "quotes": '"x" ',
}


def _promotion(text: str) -> None:
    for candidate in extract_candidates(text).candidates:
        detect(candidate.text)


def _import(text: str) -> None:
    lines = "".join(
        json.dumps({"session": "s", "role": "user", "text": line or ".", "time": 1.7e9}) + "\n"
        for line in text[: len(text) // 8].split("\n")
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.jsonl"
        path.write_text(lines or "\n", encoding="utf-8")
        read_conversations("jsonl", path)


READERS: dict[str, Callable[[str], object]] = {
    "promotion extract + detect": _promotion,
    "capture extractor": lambda t: durable_statements(t, None),
    "echo stripping": strip_echoes,
    "scanner rules": lambda t: RULES.check(t, "import", learned=False),
    "profile value check": unsafe_value,
    "curation evidence": lambda t: meaning_problem(t[:4096], [t], ["tea", "leeds"]),
    "chat import reader": _import,
    "link rewriter": lambda t: relinked_text("---\nlinks: [" + t + "]\n---\n" + t, "a", "b"),
}


def timed(read: Callable[[str], object], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        read(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-kib", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sizes = []
    size = 64
    while size <= args.max_kib:
        sizes.append(size)
        size *= 2
    print(f"| reader | shape | s at {sizes[-1]} KiB | ratio per doubling (fit) | worst step |")
    print("|---|---|---|---|---|")
    worst_all = 0.0
    for name, read in READERS.items():
        for shape, unit in SHAPES.items():
            times = []
            for kib in sizes:
                text = (unit * (kib * UNIT // len(unit) + 1))[: kib * UNIT]
                times.append(timed(read, text, args.repeat))
            ratios = [b / a for a, b in itertools.pairwise(times) if a > 0.002]
            fitted = per_doubling(times)
            worst_all = max(worst_all, fitted)
            flag = "" if fitted <= 2.5 else "  **over 2.5**"
            step = max(ratios, default=1.0)
            print(f"| {name} | {shape} | {times[-1]:.3f} | {fitted:.2f}{flag} | {step:.2f} |")
    print(f"\nworst fitted ratio per doubling: {worst_all:.2f} (target <= 2.5; quadratic is 4)")


def per_doubling(times: list[float]) -> float:
    """2 to the slope of log2(time) over the doublings (least squares): one
    stalled measurement moves it little, a quadratic loop shows 4."""
    points = [(i, math.log2(t)) for i, t in enumerate(times) if t > 0.0005]
    if len(points) < 2:
        return 1.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    num = sum((x - mean_x) * (y - mean_y) for x, y in points)
    den = sum((x - mean_x) ** 2 for x, _ in points)
    return float(2 ** (num / den))


if __name__ == "__main__":
    main()
