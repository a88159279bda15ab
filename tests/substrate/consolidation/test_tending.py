"""Forgetting and correcting filed facts on real pages, and what `history` tells."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from substrate import InvalidInputError, NotFoundError, ScannerRejection, Settings, remember
from substrate.consolidation import consolidate
from substrate.consolidation.tending import correct_fact, find_facts, forget_facts, history
from substrate.pages import fact_bullets, split_facts


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


def test_forget_by_text_retracts_the_fact_and_keeps_it_visibly_on_its_page(
    settings: Settings, filed: dict[str, str]
) -> None:
    done = forget_facts(settings, "I live in Leeds, in a flat near Hyde Park.", now=at(7))
    assert [row["id"] for row in done] == [filed["leeds"]]
    text = page(settings, "me/home")
    bullet = next(b for b in fact_bullets(text) if b.entry_id == filed["leeds"])
    assert (bullet.status, bullet.attrs.get("via")) == ("retracted", "forget")
    assert "_(until 2024-07-01; forgotten)_" in text
    assert text.index("### Earlier") < text.index("Hyde Park")
    _, items = split_facts(text)  # what the index chunks and the card excerpts
    assert not any("Hyde Park" in item.text for item in items)
    assert find_facts(settings, filed["leeds"]) == []  # forgotten: nothing left to forget
    assert history(settings, filed["leeds"])["events"][-1]["op"] == "forget"


def test_forget_refuses_several_matches_unless_all_and_names_them(
    settings: Settings, filed: dict[str, str]
) -> None:
    jog = remember(settings, "I jog in Hyde Park on Sundays.", now=at(4)).id
    consolidate(settings)
    with pytest.raises(InvalidInputError) as refused:
        forget_facts(settings, "hyde park")
    assert jog in refused.value.message and filed["leeds"] in refused.value.message
    assert "--all" in refused.value.message
    assert all(b.current for b in fact_bullets(page(settings, "me/home")))
    gone = forget_facts(settings, "hyde park", every=True)
    assert {row["id"] for row in gone} == {jog, filed["leeds"]}


def test_forget_narrowed_to_a_page_and_unknown_text(
    settings: Settings, filed: dict[str, str]
) -> None:
    with pytest.raises(NotFoundError):
        forget_facts(settings, "tea over coffee", page="me/home")
    with pytest.raises(NotFoundError):
        forget_facts(settings, "I have a cat named Miso")
    with pytest.raises(InvalidInputError):
        forget_facts(settings, "I")  # too short to name a fact
    assert forget_facts(settings, "TEA over coffee")[0]["id"] == filed["tea"]


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
