"""Every view follows every write: `recent.md`, `essentials.md` and `threads.md`
never show a fact its page no longer holds as current, whatever changed it
(forget, correct, delete, move, restore, a hand edit), a kill inside the
change leaves pages and views agreeing, and a fact still in the buffer can be
forgotten too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ingest.page_ops import delete_page, move_page, restore_page, trash
from substrate import Settings, read_buffer, remember
from substrate.consolidation import consolidate
from substrate.consolidation.tending import correct_fact
from substrate.consolidation.views import refresh_views, stale_views
from substrate.errors import InvalidInputError, NotFoundError
from substrate.forgetting import forget
from substrate.pages import fact_bullets, load_page_index
from substrate.safety import journal
from substrate.sessions import open_session_log

HOME = "I live in Leeds, in a flat near Hyde Park."
TRIP = "I'm planning a trip to Lisbon in March."
TRIP_PAGE = "projects/trip-to-lisbon"  # an endeavour: its own page


def forget_facts(settings: Settings, what: str, every: bool = False) -> list[dict[str, Any]]:
    log = open_session_log(settings.workspace)
    try:
        facts: list[dict[str, Any]] = forget(settings, log, what, every=every).answer["facts"]
        return facts
    finally:
        log.close()


def view(settings: Settings, name: str) -> str:
    return settings.workspace.view_path(name).read_text()


def shown(settings: Settings) -> str:
    return "".join(view(settings, n) for n in ("recent.md", "essentials.md", "threads.md"))


def filed(settings: Settings) -> dict[str, str]:
    ids = {remember(settings, HOME).id: HOME, remember(settings, TRIP).id: TRIP}
    consolidate(settings)
    assert HOME in view(settings, "essentials.md")
    assert TRIP in view(settings, "recent.md")
    return ids


def test_forgetting_the_last_fact_of_a_page_leaves_every_view(settings: Settings) -> None:
    filed(settings)
    threads = settings.workspace.view_path("threads.md")
    threads.write_text(f"# Threads\n\n- Still deciding: {TRIP}\n- Write to Sam.\n")
    forget_facts(settings, "trip to Lisbon")
    assert "Lisbon" not in shown(settings)
    assert "Write to Sam." in view(settings, "threads.md")  # the rest of a view stays
    assert HOME in view(settings, "recent.md")
    assert stale_views(settings, load_page_index(settings.workspace)) == []


def test_a_correction_replaces_the_old_value_in_every_view(settings: Settings) -> None:
    ids = filed(settings)
    home = next(i for i, t in ids.items() if t == HOME)
    correct_fact(settings, home, "I live in Salford now.")
    assert "Salford" in view(settings, "essentials.md")
    assert "Salford" in view(settings, "recent.md")
    assert "Hyde Park" not in shown(settings)


def test_delete_move_and_restore_carry_the_views_with_the_page(settings: Settings) -> None:
    filed(settings)
    delete_page(settings, "me/home")
    assert "Hyde Park" not in shown(settings)
    restore_page(settings, trash(settings)[0]["name"])
    assert HOME in view(settings, "essentials.md") and HOME in view(settings, "recent.md")
    move_page(settings, TRIP_PAGE, "trips/lisbon")
    assert f"{TRIP} ([[trips/lisbon]])" in view(settings, "recent.md")
    assert f"[[{TRIP_PAGE}]]" not in view(settings, "recent.md")


def test_a_hand_edit_of_a_page_is_a_stale_view_until_derived_again(settings: Settings) -> None:
    filed(settings)
    page = settings.workspace.concepts_dir / f"{TRIP_PAGE}.md"
    page.write_text(page.read_text().replace(TRIP, "I'm planning a trip to Porto in May."))
    index = load_page_index(settings.workspace)
    assert [name for name, _ in stale_views(settings, index)] == ["recent.md"]
    refresh_views(settings, index, changed=[TRIP_PAGE])
    assert "Porto" in view(settings, "recent.md") and "Lisbon" not in view(settings, "recent.md")
    assert stale_views(settings, index) == []


def test_a_buffered_fact_can_be_forgotten_and_leaves_the_buffer(settings: Settings) -> None:
    filed(settings)
    phone = remember(settings, "My old phone number is 0161 555 0199.").id
    done = forget_facts(settings, "0161 555")
    assert [(f["id"], f["page"], f["buffer"]) for f in done] == [(phone, None, True)]
    assert read_buffer(settings) == []
    archive = "".join(p.read_text() for p in settings.workspace.archive_dir.glob("*.md"))
    assert "0161 555 0199" not in archive  # forget erases: the archive keeps no words
    with pytest.raises(NotFoundError):
        forget_facts(settings, "0161 555")


def test_a_text_on_a_page_and_in_the_buffer_needs_all(settings: Settings) -> None:
    filed(settings)
    remember(settings, "I'm planning a trip to Lisbon in March, with Sam.")
    with pytest.raises(InvalidInputError, match="in the buffer"):
        forget_facts(settings, "trip to Lisbon")
    done = forget_facts(settings, "trip to Lisbon", every=True)
    assert sorted(f["page"] or "" for f in done) == ["", TRIP_PAGE]
    assert "Lisbon" not in shown(settings) and read_buffer(settings) == []


KILLED = """
import os, sys
from pathlib import Path
from typing import Any
from service.settings_loader import build_settings
from substrate.consolidation.tending import correct_fact
from substrate.forgetting import forget
from substrate.safety import journal
from substrate.sessions import open_session_log

settings = build_settings(Path(sys.argv[1]))
real_run, ran = journal._run, [0]
def run(item):
    if ran[0] == int(sys.argv[3]):
        os.kill(os.getpid(), 9)
    ran[0] += 1
    real_run(item)
journal._run = run
if sys.argv[2] == "forget":
    forget(settings, open_session_log(settings.workspace), "trip to Lisbon")
else:
    correct_fact(settings, sys.argv[2], "I live in Salford now.")
"""


@pytest.mark.parametrize("op", ["forget", "correct"])
@pytest.mark.parametrize("step", [0, 1, 2, 3])
def test_a_kill_inside_forget_or_correct_leaves_no_view_showing_the_old_value(
    settings: Settings, tmp_path: Path, op: str, step: int
) -> None:
    ids = filed(settings)
    home = next(i for i, t in ids.items() if t == HOME)
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    arg = "forget" if op == "forget" else home
    run = subprocess.run(
        [sys.executable, str(script), str(settings.workspace.root), arg, str(step)],
        capture_output=True,
        cwd=Path(__file__).parents[3],
    )
    assert run.returncode in (0, -9), run.stderr.decode()
    old = "Lisbon" if op == "forget" else "Hyde Park"
    pending = journal.pending(settings.workspace.memory_dir / ".changes.journal")
    if pending is not None:
        from substrate.consolidation.log import recover_changes

        recover_changes(settings)  # what the next writer (or `doctor --fix`) does
    from substrate.forgetting import finish_orders

    finish_orders(settings, open_session_log(settings.workspace))  # a killed forget, finished
    pages = "".join(
        b.text
        for p in settings.workspace.concepts_dir.rglob("*.md")
        for b in fact_bullets(p.read_text())
        if b.current
    )
    assert (old in pages) == (old in shown(settings))  # pages and views agree
    assert stale_views(settings, load_page_index(settings.workspace)) == []


PASSED_ON = [
    "Forwarding this from {s}: I'm moving to {p} in May.",
    "An email from {s} — I booked our flights to {p} for June.",
    "Screenshot from {s}'s message: I adopted a cat called {p}.",
]


@pytest.mark.parametrize("frame", PASSED_ON)
@pytest.mark.parametrize("speaker", ["Dad", "my friend Oksana", "Ravi"])
def test_recent_never_shows_words_passed_on_as_the_persons_own(
    settings: Settings, frame: str, speaker: str
) -> None:
    place = "Quorvany" if "cat" not in frame else "Bristlewick"
    said = frame.format(s=speaker, p=place)
    remember(settings, HOME)
    remember(settings, said)
    consolidate(settings)
    rows = [line for line in view(settings, "recent.md").split("\n") if place in line]
    assert rows, view(settings, "recent.md")
    assert all("passed on" in row for row in rows)
    assert place not in view(settings, "essentials.md")
    assert stale_views(settings, load_page_index(settings.workspace)) == []
