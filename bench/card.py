"""Per-turn latency of `Injector.assemble` and of the voice front door.

    python bench/card.py --workspace DIR [--turns 300]
    python bench/card.py --pages 10000 [--words 5,15]

`--workspace` takes an indexed workspace (make one with
`bench/ingest.py --pages 10000 --keep DIR`; its index is brought up to date
first, which embeds nothing when it already is); `--pages` generates and
indexes one (slow: every page goes through the model).

Turns run in a handful of conversations so the `hot` and `edges` lanes have
state to read, with messages mixing topic words and page titles (the
`entity` lane). Printed as JSON:

- `assemble_ms` p50/p95 over `--turns` turns (query embedding, hybrid
  search, every lane, the card, `<info>`, and recording the turn);
- `search_ms` p50/p95 for the same messages through plain `search` in the
  same process, interleaved with the turns, and the ratio of the medians:
  what the read path adds over one search;
- `assemble_cpu_ms`: the same turns in process CPU time (all threads), which a
  machine that steals wall time from the process inflates less;
- `voice_ms` p50/p95: the voice front door for a conversation that has a
  frozen card;
- `first_turn_ms`: the cold turn (PageIndex load, entity matcher build);
- `v2_assemble_ms` p50/p95: the same messages through the v2 engine
  (tier v2 over the same index, interleaved), and its median over v3's.

Targets (issue 5): assemble p50 <= 25 ms, p95 <= 50 ms, voice <= 1 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import turn_messages, word_range, workspace_for

from injector import Injector
from substrate import Settings, load_page_index, open_workspace, parse_config
from substrate.index import EdgeStore, FastembedEmbedder, SearchIndex, UseEmbedder

CONVERSATIONS = 8


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 0.95), 2),
        "n": len(values),
    }


def timed_ms(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workspace", help="an indexed workspace (see bench/ingest.py --keep)")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--words", type=word_range, default=(5, 15), help="MIN,MAX per page")
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = open_workspace(workspace_for(args, Path(tmp)))
        settings = Settings(ws, parse_config("[memory.v3]\nlive = true\n"))
        model = FastembedEmbedder("all-MiniLM-L6-v2-int8", Path(tmp) / "cache")
        search = SearchIndex(settings, model, EdgeStore(ws.state_dir / "qdrant"), UseEmbedder())
        maintained = search.maintain()
        injector = Injector(settings, search)
        v2 = Injector(Settings(ws, parse_config("[memory.v3]\nlive = false\n")), search)
        assert v2.tier == "v2"
        rng = random.Random(7)

        index = load_page_index(ws)
        titles = [e.title for e in index.entries.values()]
        texts = turn_messages(rng, titles, args.turns)

        first = timed_ms(lambda: injector.assemble(texts[0], "c0"))
        v2.assemble(texts[0])
        assemble, assemble_cpu, plain, cards, v2_ms = [], [], [], [], []
        for i, text in enumerate(texts):
            conversation = f"c{i % CONVERSATIONS}"
            started, cpu = time.perf_counter(), time.process_time()
            blocks = injector.assemble(text, conversation)
            assemble.append((time.perf_counter() - started) * 1000)
            assemble_cpu.append((time.process_time() - cpu) * 1000)
            cards.append(len(blocks.selected))
            plain.append(timed_ms(lambda text=text: search.search(text, 20)))
            v2_ms.append(timed_ms(lambda text=text: v2.assemble(text)))
        voice = [
            timed_ms(lambda i=i: injector.assemble("", f"c{i % CONVERSATIONS}", True))
            for i in range(args.turns)
        ]
        injector.close()
    print(
        json.dumps(
            {
                "pages": len(index.entries),
                "embedded_before_run": maintained.embedded,
                "first_turn_ms": round(first, 2),
                "assemble_ms": summary(assemble),
                "assemble_cpu_ms": summary(assemble_cpu),
                "search_ms": summary(plain),
                "assemble_over_search_p50": round(
                    statistics.median(assemble) / statistics.median(plain), 2
                ),
                "voice_ms": summary(voice),
                "v2_assemble_ms": summary(v2_ms),
                "v2_over_v3_p50": round(statistics.median(v2_ms) / statistics.median(assemble), 2),
                "pages_per_card_median": statistics.median(cards),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
