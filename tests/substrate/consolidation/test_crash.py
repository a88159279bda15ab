"""kill -9 at random points of consolidation runs: every fact stays on at most one
page, nothing is lost, and a rerun converges to every fact filed exactly once."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta

from substrate import Settings, read_buffer, remember
from substrate.consolidation import consolidate_all
from substrate.pages import fact_bullets
from substrate.pages.page_index import walk_pages
from substrate.safety import read_text_snapshot

FACTS = 150
NAMES = ("Caroline", "Melanie", "Sam", "Priya", "Jonas")

RUNNER = """
import dataclasses, os, sys, time
from pathlib import Path
from service.settings_loader import build_settings
from substrate.consolidation import consolidate_all

real_link, real_replace, real_rename, real_fsync = os.link, os.replace, os.rename, os.fsync
def slowed(real):
    def call(*args, **kwargs):
        time.sleep(0.002)  # stretch the run so a kill lands inside it
        return real(*args, **kwargs)
    return call
os.link, os.replace, os.rename = slowed(real_link), slowed(real_replace), slowed(real_rename)
os.fsync = slowed(real_fsync)
# the family head's embedder loads a model first: without it the kills land in the
# writes this test is about, not in the model's start
settings = dataclasses.replace(build_settings(Path(sys.argv[1])), embed=None)
# and so does the English parser the reading uses: loaded before the kills start
from substrate.meaning.parser import pipeline
pipeline()
print("START", flush=True)
consolidate_all(settings)
print("DONE", flush=True)
"""


def facts_on_pages(settings: Settings) -> Counter[str]:
    """Read the way every reader does: a listing puts back a page a killed swap
    had moved aside (its only copy), so such a page counts, and counts once."""
    counts: Counter[str] = Counter()
    concepts = settings.workspace.concepts_dir
    for rel, _ in walk_pages(concepts):
        counts.update(b.text for b in fact_bullets(read_text_snapshot(concepts / rel)[0]))
    return counts


def kill_runs(
    settings: Settings, texts: list[str], times: int, rng: random.Random, longest: float
) -> None:
    """Start a consolidation `times` times and kill -9 it within `longest` seconds;
    after each kill, no fact is on two pages and none is lost."""
    progress = []
    for _ in range(times):
        with subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(settings.workspace.root)], stdout=subprocess.PIPE
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()  # imports done: the kill lands in the run, not in startup
            time.sleep(rng.uniform(0.02, longest))
            proc.send_signal(signal.SIGKILL)
        on_pages = facts_on_pages(settings)
        buffered = {e.text for e in read_buffer(settings)}
        assert max(on_pages.values(), default=1) == 1  # never filed twice
        assert set(texts) == set(on_pages) | buffered  # never lost
        progress.append(len(on_pages))
    # the kills land inside runs, not before the first write or after the last
    assert any(0 < p < len(texts) for p in progress), progress


def test_kill_9_twenty_times_then_a_rerun_files_every_fact_once(settings: Settings) -> None:
    settings.workspace.config_path.write_text(
        "[memory.substrate]\nconsolidation_batch_entries = 20\nconsolidation_page_facts = 8\n"
        "scanner_detector = false\n"  # no model load: the kills must land inside runs
    )
    from service.settings_loader import build_settings

    settings = build_settings(settings.workspace.root)
    texts = [f"{NAMES[i % 5]} noted thing number {i}" for i in range(FACTS)]
    for i, text in enumerate(texts):
        remember(settings, text, now=datetime(2023, 5, 1 + i % 28, 10, i % 60, tzinfo=UTC))
    kill_runs(settings, texts, 20, random.Random(11), 1.5)  # each entry is parsed: runs last longer
    consolidate_all(settings)
    assert facts_on_pages(settings) == Counter(texts)
    assert read_buffer(settings) == []


def test_kill_9_in_superseding_runs_leaves_each_fact_once_and_one_current_home(
    settings: Settings,
) -> None:
    """A value and what it replaces share one page write: whatever the kill hits,
    no fact is lost, none is on two pages, and the history stays whole."""
    settings.workspace.config_path.write_text(
        "[memory.substrate]\nconsolidation_batch_entries = 6\nscanner_detector = false\n"
    )
    from service.settings_loader import build_settings

    settings = build_settings(settings.workspace.root)
    towns = [f"Town{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(60)]
    texts = []
    for i, town in enumerate(towns):
        texts.append(f"I moved to {town}.")
        remember(settings, texts[-1], now=datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=3 * i))
        if i % 3 == 0:
            texts.append(f"I bought a lamp number {i} for the flat.")
            remember(
                settings, texts[-1], now=datetime(2023, 1, 2, tzinfo=UTC) + timedelta(days=3 * i)
            )
    kill_runs(settings, texts, 12, random.Random(5), 0.4)
    consolidate_all(settings)
    assert facts_on_pages(settings) == Counter(texts)
    home = fact_bullets(read_text_snapshot(settings.workspace.concepts_dir / "me/home.md")[0])
    ids = {b.entry_id for b in home}
    assert [b.text for b in home if b.current and b.slot == "home"] == [f"I moved to {towns[-1]}."]
    assert all(b.by in ids for b in home if not b.current)  # every replacement on the page
