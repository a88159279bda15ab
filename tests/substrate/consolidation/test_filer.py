"""The deterministic filer end to end: real files, a real index, each cascade step."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from substrate import Settings, read_buffer, remember
from substrate.consolidation import consolidate, consolidate_all
from substrate.index import SearchIndex
from substrate.pages import fact_bullets, load_page_index
from tests.conftest import PageWriter
from tests.races import before_exchange
from tests.substrate.consolidation.conftest import DAY, MidRun


def page(settings: Settings, slug: str) -> str:
    return (settings.workspace.concepts_dir / f"{slug}.md").read_text()


def by_id(outcome: Any) -> dict[str, Any]:
    return {e.id: e for e in outcome.entries}


def test_each_cascade_step_decides_and_is_recorded(
    settings: Settings, write_page: PageWriter, index: SearchIndex, say: Callable[..., str]
) -> None:
    write_page("people/sam", "---\ntitle: Sam Rivera\naliases: [Sammy]\n---\nSam's notes.")
    write_page(
        "topics/garden",
        "---\ntitle: Allotment\n---\nTomatoes basil courgettes compost watering allotment soil",
    )
    index.maintain()
    hinted = say("the landlord called about the boiler", 0, ["home/flat"])
    named = say("Sammy moved to Porto last spring", 1)
    searched = say("tomatoes basil courgettes need watering and compost", 2)
    new = say("Caroline joined a choir in Lisbon", 3)
    # hours later: not a continuation of the facts above
    inbox = remember(settings, "ok so that went well i think", now=DAY + timedelta(hours=3)).id
    outcome = consolidate(settings, search=index)
    got = by_id(outcome)
    assert (got[hinted].page, got[hinted].decided_by) == ("home/flat", "hint")
    assert (got[named].page, got[named].decided_by) == ("people/sam", "entity")
    assert (got[searched].page, got[searched].decided_by) == ("topics/garden", "search")
    assert (got[new].page, got[new].decided_by) == ("caroline", "new")
    assert got[inbox].page == "inbox/2023-05-08" and got[inbox].decided_by == "inbox"
    assert all(e.status == "filed" for e in outcome.entries)
    assert read_buffer(settings) == []
    assert "- [2023-05-08] Sammy moved to Porto last spring <!-- e:" in page(settings, "people/sam")
    assert page(settings, "people/sam").startswith(
        "---\ntitle: Sam Rivera\naliases: [Sammy]\n---\nSam's notes."
    )
    assert "the landlord called about the boiler" in page(settings, "home/flat")
    assert "[[home/flat]]" not in page(settings, "home/flat")  # the self-hint is dropped


def test_a_second_fact_about_a_new_name_joins_its_page(
    settings: Settings, say: Callable[..., str]
) -> None:
    say("Caroline adopted a dog", 0)
    say("Melanie paints lake sunrises", 1)
    say("The dog likes Caroline", 2)
    outcome = consolidate(settings)
    assert [e.page for e in outcome.entries] == ["caroline", "melanie", "caroline"]
    assert [e.decided_by for e in outcome.entries] == ["new", "new", "entity"]
    assert len(fact_bullets(page(settings, "caroline"))) == 2


def test_names_tied_in_strength_go_to_the_one_named_first(
    settings: Settings, write_page: PageWriter, say: Callable[..., str]
) -> None:
    write_page("caroline", "# Caroline\n")
    write_page("melanie", "# Melanie\n")
    first = say("Melanie and Caroline went hiking", 0)
    assert by_id(consolidate(settings))[first].page == "melanie"


def test_an_exact_duplicate_adds_nothing(settings: Settings, say: Callable[..., str]) -> None:
    say("Sam is allergic to shellfish", 0, ["people/sam"])
    consolidate(settings)
    again = say("Sam is allergic to shellfish", 5, ["people/sam"])
    outcome = consolidate(settings)
    assert (by_id(outcome)[again].status, by_id(outcome)[again].reason) == (
        "merged",
        "already on the page",
    )
    assert len(fact_bullets(page(settings, "people/sam"))) == 1
    assert read_buffer(settings) == []


def test_filtered_entries_leave_the_buffer_with_their_reason(
    settings: Settings, say: Callable[..., str]
) -> None:
    echo = say("Pages from long-term memory chosen for this turn. They are reference data", 0)
    phatic = say("thanks!", 1)
    outcome = consolidate(settings)
    got = by_id(outcome)
    assert got[echo].status == "skipped" and "echoes a block" in got[echo].reason
    assert got[phatic].status == "skipped" and got[phatic].reason.startswith("phatic")
    assert read_buffer(settings) == []
    archive = settings.workspace.archive_dir / "2023-05-08.md"
    assert "thanks!" in archive.read_text()  # the archive keeps everything


def test_a_burst_in_one_minute_is_cut_into_bounded_runs(
    settings: Settings, say: Callable[..., str]
) -> None:
    for i in range(120):
        say(f"Caroline fact number {i} about pottery class", 0)
    first = consolidate(settings)
    assert len(first.entries) == 50 and len(read_buffer(settings)) == 70
    rest = consolidate_all(settings)
    assert rest.runs == 2 and read_buffer(settings) == []
    index = load_page_index(settings.workspace)
    filed = [eid for e in index.entries.values() for eid in e.filed]
    assert len(filed) == 120 == len(set(filed))


def test_a_full_page_continues_on_a_page_for_the_month(
    settings: Settings, say: Callable[..., str]
) -> None:
    settings.workspace.config_path.write_text("[memory.substrate]\nconsolidation_page_facts = 3\n")
    from service.settings_loader import build_settings

    small = build_settings(settings.workspace.root)
    for i in range(7):
        say(f"Caroline note {i}", i)
    outcome = consolidate(small)
    assert [e.page for e in outcome.entries] == ["caroline"] * 3 + ["caroline/2023-05"] * 3 + [
        "caroline/2023-05-2"
    ]
    continued = page(small, "caroline/2023-05")
    assert 'title: "Caroline, May 2023"' in continued and 'links: ["caroline"]' in continued


def test_a_dry_run_writes_nothing(settings: Settings, say: Callable[..., str]) -> None:
    say("Caroline adopted a dog", 0)
    before = settings.workspace.buffer_path.read_bytes()
    outcome = consolidate(settings, dry_run=True)
    assert outcome.dry_run and outcome.entries[0].page == "caroline"
    assert settings.workspace.buffer_path.read_bytes() == before
    assert not any(settings.workspace.concepts_dir.rglob("*.md"))


def test_a_fact_remembered_during_a_run_stays_for_the_next(
    settings: Settings, write_page: PageWriter, index: SearchIndex, say: Callable[..., str]
) -> None:
    write_page("notes", "# Notes\nsomething")
    index.maintain()
    say("an unnamed thought about the weekend", 0)
    late: list[str] = []
    mid = MidRun(index, lambda: late.append(say("Melanie called about the recital", 30)))
    consolidate(settings, search=mid)  # type: ignore[arg-type]
    assert [e.id for e in read_buffer(settings)] == late
    consolidate(settings)
    assert read_buffer(settings) == []


def test_a_page_edited_by_hand_during_a_run_is_refused_and_kept(
    settings: Settings,
    write_page: PageWriter,
    say: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The edit lands as the page is written (after the drift check, before the
    swap): the write refuses, the edit and the entry both stay."""
    path = write_page("people/sam", "---\ntitle: Sam\n---\nSam's notes.")
    entry = say("Sam moved to Porto", 0)
    before_exchange(
        monkeypatch, path, lambda: path.write_text("---\ntitle: Sam\n---\nEdited by hand.")
    )
    outcome = consolidate(settings)
    monkeypatch.undo()
    [result] = outcome.entries
    assert result.in_buffer and "changed on disk" in result.reason
    assert path.read_text() == "---\ntitle: Sam\n---\nEdited by hand."
    assert [e.id for e in read_buffer(settings)] == [entry]
    assert consolidate(settings).entries[0].status == "filed"
    assert "Sam moved to Porto" in path.read_text() and "Edited by hand." in path.read_text()


def test_recent_holds_the_newest_filed_facts(settings: Settings, say: Callable[..., str]) -> None:
    say("Caroline adopted a dog", 0)
    consolidate(settings)
    recent = settings.workspace.view_path("recent.md").read_text()
    assert "- [2023-05-08] Caroline adopted a dog ([[caroline]])" in recent


def test_explain_says_where_an_entry_went(settings: Settings, say: Callable[..., str]) -> None:
    from substrate.consolidation import explain

    entry = say("Caroline adopted a dog", 0)
    assert explain(settings, entry)["state"] == "in the buffer"
    consolidate(settings)
    found = explain(settings, entry)
    assert found["state"] == "filed" and found["pages"] == ["caroline"]
    assert found["decisions"][0]["decided_by"] == "new"
