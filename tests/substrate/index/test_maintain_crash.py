"""A maintain killed half way never leaves an index state that claims points the
store lacks: the next plain maintain repairs it, no doctor needed."""

from __future__ import annotations

import signal
import subprocess
import sys

from substrate import Settings
from substrate.index import EdgeStore, SearchIndex
from substrate.index.index_state import read_index_state, state_path
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder

PAGES = 120
KILLED_MAINTAIN = """
import sys, time
from pathlib import Path
from service.settings_loader import build_settings
from substrate.index import EdgeStore, SearchIndex
from tests.embedders import HashingEmbedder

settings = build_settings(Path(sys.argv[1]))
store = EdgeStore(settings.workspace.state_dir / "qdrant")
real_upsert = store.upsert
def slow_upsert(points):
    real_upsert(points)
    store.flush()
    print("UPSERTED", flush=True)
    time.sleep(0.5)
store.upsert = slow_upsert
index = SearchIndex(settings, HashingEmbedder(), store)
entries = []
if sys.argv[2] == "episodes":
    from service.maintaining import episode_entries
    from substrate.sessions import open_session_log
    from substrate.sessions.episodes import LoggedEpisodes

    entries = episode_entries(LoggedEpisodes()(open_session_log(settings.workspace, read_only=True)))
index.maintain(entries, rebuild=sys.argv[2] == "rebuild")
print("DONE", flush=True)
"""


def open_index(settings: Settings) -> SearchIndex:
    return SearchIndex(
        settings, HashingEmbedder(), EdgeStore(settings.workspace.state_dir / "qdrant")
    )


def write_corpus(write_page: PageWriter, word: str) -> None:
    for i in range(PAGES):
        write_page(f"notes/n{i:03d}", f"# Note {i}\n{word} number {i} " + "filler " * 40)


def kill_after_first_batch(settings: Settings, mode: str) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", KILLED_MAINTAIN, str(settings.workspace.root), mode],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stdout.readline() == "UPSERTED\n"
        proc.send_signal(signal.SIGKILL)


def assert_claims_match_the_store(settings: Settings, index: SearchIndex) -> None:
    state = read_index_state(state_path(settings.workspace.index_dir))
    assert state["complete"] is True
    assert set(index.store.slug_counts()) == set(state["pages"])
    assert sum(n for _, n in state["pages"].values()) == index.store.count()


def test_a_killed_rebuild_is_repaired_by_the_next_plain_maintain(
    settings: Settings, write_page: PageWriter
) -> None:
    write_corpus(write_page, "apricot")
    first = open_index(settings)
    first.maintain()
    first.store.close()
    kill_after_first_batch(settings, "rebuild")
    state = read_index_state(state_path(settings.workspace.index_dir))
    assert state["pages"] == {}  # the state claims nothing while the store is half built
    index = open_index(settings)
    report = index.maintain()
    assert report.rebuilt and report.embedded == PAGES
    assert_claims_match_the_store(settings, index)
    assert index.search("apricot number 117", 1)[0].slug == "notes/n117"
    index.store.close()


def test_a_killed_update_re_embeds_what_it_had_not_finished(
    settings: Settings, write_page: PageWriter
) -> None:
    write_corpus(write_page, "apricot")
    first = open_index(settings)
    first.maintain()
    first.store.close()
    write_corpus(write_page, "quince")  # every page changes
    kill_after_first_batch(settings, "update")
    index = open_index(settings)
    report = index.maintain()
    assert not report.rebuilt and report.unchanged + report.embedded == PAGES
    assert report.embedded > 0
    assert_claims_match_the_store(settings, index)
    hits = index.search("quince number 5", 3)
    assert hits[0].slug == "notes/n005" and "quince" in hits[0].excerpt
    assert all("apricot" not in h.excerpt for h in index.search("apricot", 5))
    index.store.close()


def test_a_maintain_killed_while_indexing_episodes_is_repaired_by_the_next(
    settings: Settings, write_page: PageWriter
) -> None:
    from service.maintaining import episode_entries
    from substrate.sessions import NewMessage, open_session_log
    from substrate.sessions.episodes import LoggedEpisodes

    write_corpus(write_page, "apricot")
    log = open_session_log(settings.workspace)
    for s in range(60):
        turns = [
            NewMessage("user", f"session {s} turn {t} " + "words " * 60, True) for t in range(8)
        ]
        log.append(f"s{s}", turns, 1_700_000_000.0 + s)
    log.close()
    kill_after_first_batch(settings, "episodes")
    index = open_index(settings)
    reading = open_session_log(settings.workspace, read_only=True)
    entries = episode_entries(LoggedEpisodes()(reading))
    index.maintain(entries)
    assert_claims_match_the_store(settings, index)
    state = read_index_state(state_path(settings.workspace.index_dir))
    assert {e.slug for e in entries} <= set(state["pages"])
    assert index.maintain(entries).embedded == 0
