"""v1 filing: buffer entries go onto their month's knowledge-base note, idempotent
by entry id, and a kill -9 at any point leaves every fact in exactly one place
once a rerun has finished."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime

import pytest

from service.settings_loader import build_settings
from substrate import MemoryDisabledError, Settings, read_buffer, remember
from substrate.consolidation import file_into_pkb
from substrate.pages import fact_bullets, load_page_index
from substrate.pages.page_index import walk_pages
from substrate.safety import read_text_snapshot

V1 = "[memory.v2]\nenabled = false\n[memory.v3]\nlive = false\n[memory.substrate]\nscanner_detector = false\n"
RUNNER = """
import os, sys, time
from pathlib import Path
from service.settings_loader import build_settings
from substrate.consolidation import file_into_pkb

def slowed(real):
    def call(*args, **kwargs):
        time.sleep(0.003)  # stretch the run so a kill lands inside it
        return real(*args, **kwargs)
    return call
os.link, os.replace, os.fsync = slowed(os.link), slowed(os.replace), slowed(os.fsync)
settings = build_settings(Path(sys.argv[1]))
print("START", flush=True)
file_into_pkb(settings)
print("DONE", flush=True)
"""


@pytest.fixture
def v1(settings: Settings) -> Settings:
    settings.workspace.config_path.write_text(V1)
    return build_settings(settings.workspace.root)


def facts_on_notes(settings: Settings) -> Counter[str]:
    pkb = settings.pkb().workspace.concepts_dir
    counts: Counter[str] = Counter()
    for rel, _ in walk_pages(pkb):
        counts.update(b.text for b in fact_bullets(read_text_snapshot(pkb / rel)[0]))
    return counts


def test_entries_go_onto_their_months_note_and_leave_the_buffer(v1: Settings) -> None:
    remember(v1, "Sam moved to Porto", now=datetime(2024, 3, 2, 9, 0, tzinfo=UTC))
    remember(v1, "Sam adopted a cat", now=datetime(2024, 3, 20, 9, 0, tzinfo=UTC))
    remember(v1, "Sam started judo", now=datetime(2024, 4, 1, 9, 0, tzinfo=UTC))
    remember(v1, "ok thanks")  # chatter: skipped, as consolidation skips it
    planned = file_into_pkb(v1, dry_run=True)
    assert (planned.filed, planned.notes) == (3, ["remembered/2024-03", "remembered/2024-04"])
    assert len(read_buffer(v1)) == 4 and facts_on_notes(v1) == Counter()
    done = file_into_pkb(v1)
    assert done.filed == 3 and len(done.skipped) == 1 and read_buffer(v1) == []
    notes = load_page_index(v1.pkb().workspace).entries
    assert notes["remembered/2024-03"].title == "Remembered in March 2024"
    assert notes["remembered/2024-03"].facts == 2
    assert not v1.workspace.concepts_dir.joinpath("remembered").exists()  # no concept page
    again = file_into_pkb(v1)
    assert (again.filed, again.earlier) == (0, 0)


def test_filing_into_the_knowledge_base_is_refused_off_tier_v1(settings: Settings) -> None:
    with pytest.raises(MemoryDisabledError, match="only on tier v1"):
        file_into_pkb(settings)


def test_kill_9_ten_times_then_a_rerun_files_every_fact_once(v1: Settings) -> None:
    """Each round remembers new facts, then kills a filer somewhere in its run."""
    rng = random.Random(5)
    texts: list[str] = []
    landed = 0
    for round_ in range(10):
        for i in range(12):
            n = len(texts)
            texts.append(f"fact number {n} about the garden")
            remember(v1, texts[-1], now=datetime(2024, 1 + i % 6, 1 + round_, 10, i, tzinfo=UTC))
        with subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(v1.workspace.root)], stdout=subprocess.PIPE
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()
            time.sleep(rng.uniform(0.0, 0.08))
            proc.send_signal(signal.SIGKILL)
        on_notes = facts_on_notes(v1)
        buffered = {e.text for e in read_buffer(v1)}
        assert max(on_notes.values(), default=1) == 1  # never filed twice
        assert set(texts) == set(on_notes) | buffered  # never lost
        landed += bool(buffered)
    assert landed >= 3  # most kills landed inside a run, not after it
    file_into_pkb(v1)
    assert facts_on_notes(v1) == Counter(texts) and read_buffer(v1) == []
