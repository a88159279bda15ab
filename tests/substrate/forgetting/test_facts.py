"""Forgetting filed and buffered facts: erased from every file, what they replaced
given back, a repeat recognised by its tombstone."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from substrate import InvalidInputError, NotFoundError, Settings, remember
from substrate.consolidation import consolidate
from substrate.consolidation.tending import correct_fact, find_facts, history
from substrate.forgetting import forget
from substrate.lineage import read_tombstones
from substrate.pages import fact_bullets
from substrate.sessions import SessionLog, open_session_log


def at(month: int, day: int = 1) -> datetime:
    return datetime(2024, month, day, 10, 0, tzinfo=UTC)


def page(settings: Settings, slug: str) -> str:
    return (settings.workspace.concepts_dir / f"{slug}.md").read_text()


def holding(root: Path, words: str) -> list[str]:
    """Every file under `root` whose bytes hold `words` (case aside)."""
    needle = words.casefold().encode()
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and needle in p.read_bytes().decode("utf-8", "replace").casefold().encode()
    )


@pytest.fixture
def log(settings: Settings) -> SessionLog:
    opened = open_session_log(settings.workspace)
    yield opened
    opened.close()


@pytest.fixture
def filed(settings: Settings) -> dict[str, str]:
    ids = {
        "leeds": remember(settings, "I live in Leeds, in a flat near Hyde Park.", now=at(3)).id,
        "tea": remember(settings, "I prefer tea over coffee.", now=at(3, 2)).id,
        "editor": remember(settings, "I use Vim as my editor.", now=at(3, 3)).id,
    }
    consolidate(settings)
    return ids


def test_a_forgotten_fact_leaves_every_file_and_keeps_a_tombstone_without_words(
    settings: Settings, log: SessionLog, filed: dict[str, str]
) -> None:
    done = forget(settings, log, "I live in Leeds, in a flat near Hyde Park.", via="cli")
    assert [f["id"] for f in done.answer["facts"]] == [filed["leeds"]]
    assert holding(settings.workspace.root, "Hyde Park") == []
    # me/home held that fact alone: a page with nothing left goes
    assert not (settings.workspace.concepts_dir / "me" / "home.md").exists()
    grave = read_tombstones(settings.workspace).facts[filed["leeds"]]
    assert grave["via"] == "cli" and "text" not in grave
    events = history(settings, filed["leeds"])["events"]
    assert events[-1]["op"] == "forgotten" and events[-1]["via"] == "cli"
    assert all("text" not in e and "Hyde" not in str(e) for e in events)
    assert find_facts(settings, filed["leeds"]) == []


def test_forgetting_again_answers_already_forgotten_by_id_and_by_words(
    settings: Settings, log: SessionLog, filed: dict[str, str]
) -> None:
    forget(settings, log, filed["tea"])
    by_id = forget(settings, log, filed["tea"]).answer
    by_words = forget(settings, log, "i prefer TEA over coffee.").answer
    assert by_id["already_forgotten"] == by_words["already_forgotten"]
    assert by_id["already_forgotten"] == datetime.now(UTC).date().isoformat()
    with pytest.raises(NotFoundError, match="nothing to forget"):
        forget(settings, log, "I have a cat named Miso")


def test_several_matches_are_refused_unless_all_and_named(
    settings: Settings, log: SessionLog, filed: dict[str, str]
) -> None:
    jog = remember(settings, "I jog in Hyde Park on Sundays.", now=at(4)).id
    consolidate(settings)
    with pytest.raises(InvalidInputError) as refused:
        forget(settings, log, "hyde park")
    assert jog in refused.value.message and filed["leeds"] in refused.value.message
    assert "--all" in refused.value.message
    gone = forget(settings, log, "hyde park", every=True).answer
    assert {f["id"] for f in gone["facts"]} == {jog, filed["leeds"]}
    with pytest.raises(NotFoundError):
        forget(settings, log, "tea over coffee", page="me/home")
    with pytest.raises(InvalidInputError):
        forget(settings, log, "I")  # too short to name a fact


def test_a_forgotten_successor_gives_the_slot_back_and_the_card_views_show_it(
    settings: Settings, log: SessionLog
) -> None:
    right = remember(settings, "My phone number is 0131 555 0101.", now=at(3)).id
    consolidate(settings)
    wrong = remember(settings, "My phone number is 0612 345 678.", now=at(5)).id
    consolidate(settings)
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, "me/contact"))}
    assert bullets[right].by == wrong  # the wrong one took the slot
    done = forget(settings, log, wrong)
    assert done.answer["derived"]["restored"] == [right]
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, "me/contact"))}
    assert bullets[right].current and wrong not in bullets
    assert "0131 555 0101" in (settings.workspace.memory_dir / "essentials.md").read_text()
    assert "0612" not in (settings.workspace.memory_dir / "recent.md").read_text()
    assert history(settings, right)["events"][-1]["op"] == "restored"


def test_the_slot_goes_to_the_newest_value_still_standing_after_the_one_forgotten(
    settings: Settings, log: SessionLog
) -> None:
    ids = []
    for text, month in (("I live in Leeds.", 1), ("I moved to York.", 3), ("I moved to Bath.", 5)):
        ids.append(remember(settings, text, now=at(month)).id)
        consolidate(settings)
    leeds, york, bath = ids
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, "me/home"))}
    assert (bullets[leeds].by, bullets[york].by, bullets[bath].current) == (york, bath, True)
    forget(settings, log, york)  # the middle one, already replaced
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, "me/home"))}
    assert bullets[leeds].by == bath and not bullets[leeds].current
    forget(settings, log, bath)
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, "me/home"))}
    assert bullets[leeds].current


def test_forgetting_a_correction_does_not_bring_back_what_it_corrected(
    settings: Settings, log: SessionLog, filed: dict[str, str]
) -> None:
    done = correct_fact(settings, filed["editor"], "I use Helix as my editor.", now=at(8))
    forget(settings, log, done["fact"]["id"])
    old = next(
        b for b in fact_bullets(page(settings, done["page"])) if b.entry_id == filed["editor"]
    )
    assert (old.current, old.by) == (False, None)  # the person said it was wrong
    assert holding(settings.workspace.root, "Helix") == []


def test_forgetting_a_cessation_makes_what_it_ended_true_again(
    settings: Settings, log: SessionLog
) -> None:
    tom = remember(settings, "My partner is Tom.", now=at(2)).id
    consolidate(settings)
    stop = remember(settings, "I broke up with Tom.", now=at(6)).id
    consolidate(settings)
    slug = find_facts(settings, tom)[0].slug
    ended = next(b for b in fact_bullets(page(settings, slug)) if b.entry_id == tom)
    assert (ended.status, ended.by) == ("retracted", stop)
    forget(settings, log, stop)
    assert next(b for b in fact_bullets(page(settings, slug)) if b.entry_id == tom).current
    assert holding(settings.workspace.root, "broke up") == []


def test_a_page_made_for_the_fact_alone_goes_with_the_links_to_it(
    settings: Settings, log: SessionLog
) -> None:
    remember(settings, "Zorblax Quintero is my climbing partner.", now=at(2))
    consolidate(settings)
    made = [p for p in settings.workspace.concepts_dir.rglob("*.md") if "zorblax" in p.name]
    assert len(made) == 1, "the filer made a page named for the person"
    slug = made[0].relative_to(settings.workspace.concepts_dir).with_suffix("").as_posix()
    other = settings.workspace.concepts_dir / "climbing.md"
    other.write_text(
        "# Climbing\n\n<!-- memory:facts -->\n## Facts\n\n"
        f"Related: [[{slug}]], [[me/sport]]\n<!-- /memory:facts -->\n"
    )
    forget(settings, log, "Zorblax", every=True)
    assert holding(settings.workspace.memory_dir, "zorblax") == []
    assert not made[0].exists()
    assert "Related: [[me/sport]]" in other.read_text()


@pytest.mark.parametrize(
    "label", ["Pixel, my cat", "Sam, Jo, and the kids", "a, b", "commas, everywhere, here"]
)
def test_links_kept_on_a_related_line_keep_their_labels_whole(label: str) -> None:
    from substrate.forgetting.facts import _without_links

    line = f"Related: [[pets/pixel|{label}]], [[gone/page|{label}]], [[me/sport]]"
    assert _without_links(line, {"gone/page"}) == (f"Related: [[pets/pixel|{label}]], [[me/sport]]")
    assert _without_links(line, {"pets/pixel", "gone/page", "me/sport"}) == ""


def test_a_buffered_fact_is_erased_from_the_buffer_and_its_archive_too(
    settings: Settings, log: SessionLog
) -> None:
    remember(settings, "My locker code is QX-4411 at the pool.", now=at(4))
    done = forget(settings, log, "locker code").answer
    assert done["facts"][0]["buffer"] is True
    assert holding(settings.workspace.root, "QX-4411") == []


def test_a_fact_in_a_trashed_page_is_erased_there_too(
    settings: Settings, log: SessionLog, filed: dict[str, str]
) -> None:
    from ingest.page_ops import delete_page

    slug = find_facts(settings, filed["editor"])[0].slug
    delete_page(settings, slug)
    forget(settings, log, filed["editor"])
    assert holding(settings.workspace.root, "Vim as my editor") == []
