"""kill -9 at random points of corrections, moves, deletes and restores: every page
is whole (before or after, never torn), in exactly one place, and every fact on
exactly one page with one current value."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from substrate import Settings, remember
from substrate.consolidation import consolidate_all
from substrate.consolidation.log import rows
from substrate.consolidation.tending import history
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


def file_people(settings: Settings) -> None:
    """One page per person, each with one filed fact."""
    settings.workspace.config_path.write_text("[memory.substrate]\nscanner_detector = false\n")
    for name in PEOPLE:
        remember(settings, f"My friend {name.title()} lives in Porto.", [f"people/{name}"])
    consolidate_all(settings)


def check_history(settings: Settings) -> None:
    """What `memory history` tells (read as a person would, after the kill) is
    where the pages are: replaying its moves, deletes and restores from the
    start gives exactly the files on disk, and every correction on a page is in
    it, and nothing else."""
    history(settings, "people/anika")  # the reader's path: a half-made change is finished
    where = {("concepts", f"people/{name}") for name in PEOPLE}
    corrections = set()
    for row in rows(settings):
        op = row.get("op")
        if op == "move_page":
            where.remove(("concepts", row["from"]))
            where.add(("concepts", row["to"]))
        elif op == "delete_page":
            where.remove(("concepts", row["page"]))
            where.add(("trash", row["trash"]))
        elif op == "restore_page":
            where.remove(("trash", row["trash"]))
            where.add(("concepts", row["page"]))
        elif op == "correct":
            corrections.add(row["id"])
    ws = settings.workspace
    trash = ws.memory_dir / "trash"
    found = {
        ("concepts", p.relative_to(ws.concepts_dir).with_suffix("").as_posix())
        for p in ws.concepts_dir.rglob("*.md")
    }
    found |= {
        ("trash", p.relative_to(trash).with_suffix("").as_posix()) for p in trash.rglob("*.md")
    }
    assert found == where
    on_pages = {
        b.entry_id
        for p in every_page(settings)
        for b in fact_bullets(p.read_text())
        if b.attrs.get("via") == "correct"
    }
    assert on_pages == corrections


def test_kill_9_in_corrections_moves_and_deletes_leaves_every_page_whole_and_once(
    settings: Settings,
) -> None:
    file_people(settings)
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
        check_history(settings)
    corrected = sum(
        len(fact_bullets(p.read_text())) - 1 for p in every_page(settings)
    )  # the kills landed after some corrections, not before all of them
    assert corrected > 0


AT_RENAME = """
import os, signal, sys
from pathlib import Path
from service.settings_loader import build_settings
from ingest.page_ops import delete_page, move_page, restore_page

nth, when = int(sys.argv[2]), sys.argv[3]
real, calls = os.rename, [0]
def dying(src, dst):
    calls[0] += 1
    if calls[0] == nth and when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
    if calls[0] == nth and when == "after":
        os.kill(os.getpid(), signal.SIGKILL)
os.rename = dying
settings = build_settings(Path(sys.argv[1]))
moved = move_page(settings, "people/anika", "friends/anika")["to"]
restore_page(settings, delete_page(settings, moved)["trash"])
move_page(settings, "friends/anika", "people/anika")
"""


def test_a_kill_just_before_or_after_each_rename_leaves_history_and_files_in_agreement(
    settings: Settings,
) -> None:
    file_people(settings)
    for nth in (1, 2, 3, 4):
        for when in ("before", "after"):
            done = subprocess.run(
                [sys.executable, "-c", AT_RENAME, str(settings.workspace.root), str(nth), when],
                check=False,
            )
            assert done.returncode == -signal.SIGKILL, (nth, when)
            shutil.rmtree(settings.workspace.state_dir)  # derived state: losing it loses nothing
            check(settings, len(PEOPLE))
            check_history(settings)
            # put anika back where the next round expects her
            index_slugs = {p.stem for p in settings.workspace.concepts_dir.rglob("anika.md")}
            if not (settings.workspace.concepts_dir / "people/anika.md").exists():
                from ingest.page_ops import move_page, restore_page, trash

                if index_slugs:
                    move_page(settings, "friends/anika", "people/anika")
                else:
                    restored = restore_page(settings, trash(settings)[0]["name"])
                    if restored["page"] != "people/anika":
                        move_page(settings, restored["page"], "people/anika")
            check_history(settings)
