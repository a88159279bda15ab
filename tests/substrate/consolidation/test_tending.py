"""Correcting filed facts on real pages, and what `history` tells (forgetting:
`tests/substrate/forgetting/`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from substrate import InvalidInputError, NotFoundError, ScannerRejection, Settings, remember
from substrate.consolidation import consolidate
from substrate.consolidation.tending import correct_fact, find_facts, history
from substrate.pages import fact_bullets


def at(month: int, day: int = 1) -> datetime:
    return datetime(2024, month, day, 10, 0, tzinfo=UTC)


def page(settings: Settings, slug: str) -> str:
    return (settings.workspace.concepts_dir / f"{slug}.md").read_text()


def archive_text(settings: Settings) -> str:
    return "".join(p.read_text() for p in sorted(settings.workspace.archive_dir.glob("*.md")))


@pytest.fixture
def filed(settings: Settings) -> dict[str, str]:
    ids = {
        "leeds": remember(settings, "I live in Leeds, in a flat near Hyde Park.", now=at(3)).id,
        "tea": remember(settings, "I prefer tea over coffee.", now=at(3, 2)).id,
        "editor": remember(settings, "I use Vim as my editor.", now=at(3, 3)).id,
    }
    consolidate(settings)
    return ids


def test_correct_supersedes_with_the_new_text_dated_now_and_archived(
    settings: Settings, filed: dict[str, str]
) -> None:
    done = correct_fact(settings, filed["editor"], "I use Helix as my editor.", now=at(8, 5))
    new_id = done["fact"]["id"]
    assert done["replaced"]["superseded_by"] == new_id
    bullets = {b.entry_id: b for b in fact_bullets(page(settings, done["page"]))}
    assert bullets[new_id].current and bullets[new_id].day.isoformat() == "2024-08-05"
    assert bullets[new_id].slot == bullets[filed["editor"]].slot
    assert (bullets[filed["editor"]].status, bullets[filed["editor"]].by) == ("superseded", new_id)
    assert "replaced by: I use Helix as my editor." in page(settings, done["page"])
    assert "I use Helix as my editor." in archive_text(settings)
    ops = [e["op"] for e in history(settings, filed["editor"])["events"]]
    assert ops[0].startswith("file:") and ops[-1] == "correct"
    page_ops = [e["op"] for e in history(settings, done["page"])["events"]]
    assert "correct" in page_ops


def test_the_same_words_corrected_onto_two_facts_in_one_minute_get_two_ids(
    settings: Settings, filed: dict[str, str]
) -> None:
    words = "A note on the garden review."
    one = correct_fact(settings, filed["editor"], words, now=at(8, 5))["fact"]["id"]
    two = correct_fact(settings, filed["tea"], words, now=at(8, 5))["fact"]["id"]
    assert one != two
    ids = [
        b.entry_id
        for p in settings.workspace.concepts_dir.rglob("*.md")
        for b in fact_bullets(p.read_text())
    ]
    assert ids.count(one) == 1 and ids.count(two) == 1


def test_correct_refuses_a_secret_an_old_fact_and_an_unknown_id(
    settings: Settings, filed: dict[str, str]
) -> None:
    slug = find_facts(settings, filed["tea"])[0].slug
    before = page(settings, slug)
    with pytest.raises(ScannerRejection):
        correct_fact(settings, filed["tea"], "my key is sk-proj-" + "a1B2c3D4" * 6)
    with pytest.raises(NotFoundError):
        correct_fact(settings, "0123456789ab", "I prefer coffee.")
    done = correct_fact(settings, filed["tea"], "I prefer coffee, black.", now=at(9))
    with pytest.raises(InvalidInputError):
        correct_fact(settings, filed["tea"], "I prefer green tea.")  # superseded already
    assert before != page(settings, slug)
    assert done["fact"]["text"] == "I prefer coffee, black."
