"""kill -9 at random points of corrections, moves, deletes and restores: every page
is whole (before or after, never torn), in exactly one place, and every fact on
exactly one page with one current value."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from substrate import Settings, remember
from substrate.consolidation import consolidate_all
from substrate.pages import fact_bullets, parse_page

PEOPLE = ("anika", "bruno", "chen", "dara", "emeka", "farah")

RUNNER = """
import os, sys, time
from pathlib import Path
from service.settings_loader import build_settings
from ingest.page_ops import delete_page, move_page, restore_page
from substrate.consolidation.tending import correct_fact
from substrate.pages import fact_bullets, load_page_index

real = {name: getattr(os, name) for name in ("link", "replace", "rename", "fsync")}
def slowed(call):
    def run(*args, **kwargs):
        time.sleep(0.003)  # stretch each step so a kill lands inside an operation
        return call(*args, **kwargs)
    return run
for name, call in real.items():
    setattr(os, name, slowed(call))
settings = build_settings(Path(sys.argv[1]))
print("START", flush=True)
round = 0
while True:
    round += 1
    index = load_page_index(settings.workspace)
    for slug, entry in sorted(index.entries.items()):
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        current = [b for b in fact_bullets(text) if b.current]
        correct_fact(settings, current[0].entry_id, f"{current[0].text.split(' (')[0]} (v{round})")
        moved = slug.replace("people/", "friends/") if slug.startswith("people/") else slug.replace("friends/", "people/")
        move_page(settings, slug, moved)
        deleted = delete_page(settings, moved)
        restore_page(settings, deleted["trash"])
"""


def every_page(settings: Settings) -> list[Path]:
    ws = settings.workspace
    return sorted([*ws.concepts_dir.rglob("*.md"), *(ws.memory_dir / "trash").rglob("*.md")])


def check(settings: Settings, facts: int) -> None:
    pages = every_page(settings)
    assert len(pages) == len(PEOPLE), pages  # each page in exactly one place
    ids: Counter[str] = Counter()
    for path in pages:
        data = path.read_bytes()
        parse_page(path.stem, data, datetime.now(UTC))  # whole: it parses
        bullets = fact_bullets(data.decode())
        assert sum(b.current for b in bullets) == 1, path  # one current value
        ids.update(b.entry_id for b in bullets if b.entry_id)
    assert max(ids.values()) == 1  # every fact on one page
    assert len(ids) >= facts


def test_kill_9_in_corrections_moves_and_deletes_leaves_every_page_whole_and_once(
    settings: Settings,
) -> None:
    settings.workspace.config_path.write_text("[memory.substrate]\nscanner_detector = false\n")
    for name in PEOPLE:
        remember(settings, f"My friend {name.title()} lives in Porto.", [f"people/{name}"])
    consolidate_all(settings)
    check(settings, len(PEOPLE))
    rng = random.Random(7)
    for _ in range(12):
        with subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(settings.workspace.root)], stdout=subprocess.PIPE
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()
            time.sleep(rng.uniform(0.05, 0.8))
            proc.send_signal(signal.SIGKILL)
        check(settings, len(PEOPLE))
    corrected = sum(
        len(fact_bullets(p.read_text())) - 1 for p in every_page(settings)
    )  # the kills landed after some corrections, not before all of them
    assert corrected > 0
