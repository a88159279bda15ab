"""Facts that change, filed end to end: real files, the deterministic filer, the
page the person opens."""

from __future__ import annotations

from datetime import UTC, datetime

from substrate import Settings, remember
from substrate.consolidation import consolidate, consolidate_all, explain
from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet, fact_bullets, load_page_index
from tests.conftest import PageWriter


def at(month: int, day: int = 1) -> datetime:
    return datetime(2024, month, day, 10, 0, tzinfo=UTC)


def say(settings: Settings, text: str, when: datetime) -> str:
    return remember(settings, text, now=when).id


def page(settings: Settings, slug: str) -> str:
    return (settings.workspace.concepts_dir / f"{slug}.md").read_text()


def statuses(settings: Settings, slug: str) -> dict[str, tuple[str, str | None]]:
    return {b.text: (b.status, b.by) for b in fact_bullets(page(settings, slug))}


def test_a_newer_value_supersedes_and_the_page_keeps_what_it_replaced(settings: Settings) -> None:
    leeds = say(settings, "I live in Leeds.", at(3))
    manchester = say(settings, "I moved to Manchester.", at(6, 2))
    consolidate(settings)
    text = page(settings, "me/home")
    assert text.startswith('---\ntitle: "Home"')
    assert statuses(settings, "me/home") == {
        "I live in Leeds.": ("superseded", manchester),
        "I moved to Manchester.": ("current", None),
    }
    assert "### Earlier" in text
    assert "I live in Leeds. _(until 2024-06-02; replaced by: I moved to Manchester.)_" in text
    assert text.index("I moved to Manchester.") < text.index("### Earlier")
    assert explain(settings, leeds)["pages"] == ["me/home"]


def test_a_backdated_arrival_goes_into_the_history_and_never_supersedes(
    settings: Settings,
) -> None:
    manchester = say(settings, "I moved to Manchester.", at(6, 2))
    consolidate(settings)
    leeds = say(settings, "I live in Leeds.", at(3))  # remember --at an older day
    outcome = consolidate(settings)
    assert statuses(settings, "me/home") == {
        "I moved to Manchester.": ("current", None),
        "I live in Leeds.": ("superseded", manchester),
    }
    [filed] = [e for e in outcome.entries if e.id == leeds]
    assert (filed.lifecycle, filed.superseded_by, filed.slot) == ("history", manchester, "home")
    index = load_page_index(settings.workspace)
    assert index.entries["me/home"].fresh_at == at(6, 2).replace(hour=0)


def test_arabic_updates_supersede_too(settings: Settings) -> None:
    say(settings, "أعمل في شركة Initech.", at(1, 10))
    hooli = say(settings, "تركت Initech وانضممت إلى Hooli.", at(5, 8))
    consolidate(settings)
    # the clause that told the end is its record; the new employer stays current
    assert statuses(settings, "me/work") == {
        "أعمل في شركة Initech.": ("superseded", hooli),
        "تركت Initech": ("ended", None),
        "انضممت إلى Hooli.": ("current", None),
    }


def test_a_value_added_to_a_slot_of_many_values_does_not_supersede(settings: Settings) -> None:
    say(settings, "We have a dog called Biscuit.", at(2))
    say(settings, "We also adopted a cat named Miso last week.", at(4))
    consolidate(settings)
    assert {s for s, _ in statuses(settings, "me/pets").values()} == {"current"}


def test_change_language_naming_the_old_value_ends_it_on_a_slot_of_many(
    settings: Settings,
) -> None:
    say(settings, "I use React at work.", at(2))
    svelte = say(settings, "We migrated the app from React to Svelte.", at(4))
    consolidate(settings)
    assert statuses(settings, "me/tech")["I use React at work."] == ("superseded", svelte)


def test_a_fact_that_says_only_that_a_value_ended_retracts_it(settings: Settings) -> None:
    say(settings, "My partner's name is Tom.", at(2))
    ended = say(settings, "Tom and I split up last month.", at(5))
    consolidate(settings)
    assert statuses(settings, "me/family")["My partner's name is Tom."] == ("retracted", ended)
    assert "(until 2024-05-01; no longer true)" in page(settings, "me/family")


def test_facts_about_others_never_supersede_the_users_own(settings: Settings) -> None:
    say(settings, "I live in Leeds.", at(2))
    say(settings, "My brother Tom lives in Oslo.", at(4))
    consolidate(settings)
    assert statuses(settings, "me/home") == {"I live in Leeds.": ("current", None)}
    index = load_page_index(settings.workspace)
    tom = index.entries["people/tom"]
    assert (tom.title, tom.aliases) == ("Tom (brother)", ("Tom",))


def test_a_hand_edit_of_the_history_is_honoured(settings: Settings) -> None:
    say(settings, "I live in Leeds.", at(3))
    say(settings, "I moved to Manchester.", at(6, 2))
    consolidate(settings)
    path = settings.workspace.concepts_dir / "me/home.md"
    lines = path.read_text().split("\n")
    leeds = next(line for line in lines if "Leeds" in line)
    lines.remove(leeds)
    lines.insert(lines.index("## Facts") + 1, leeds)  # the person says Leeds is true again
    path.write_text("\n".join(lines))
    say(settings, "I rent a flat with a garden.", at(7))
    consolidate(settings)
    after = path.read_text()
    assert leeds in after.split("\n")  # left exactly as the person wrote it
    assert statuses(settings, "me/home")["I live in Leeds."][0] == "current"


def test_a_fact_naming_another_page_links_it(settings: Settings, write_page: PageWriter) -> None:
    write_page("acme", "---\ntitle: Acme\n---\nThe company.")
    say(settings, "I just started a new job at Acme.", at(3))
    consolidate(settings)
    assert "Related: [[acme]]" in page(settings, "me/work")
    index = load_page_index(settings.workspace)
    assert "acme" in {link.target for link in index.entries["me/work"].links}


def test_no_page_is_titled_by_a_greeting_filler_or_pronoun(settings: Settings) -> None:
    for i, text in enumerate(
        [
            "Yes",
            "Yeah we're thinking about it",
            "Hi I'm Amara, I'm a nurse in Leeds.",
            "It was a long week",
            "I'm so tired today",
            "Caroline: I went to a support group yesterday",
        ]
    ):
        say(settings, text, at(3, i + 1))
    consolidate_all(settings)
    titles = {e.title for e in load_page_index(settings.workspace).entries.values()}
    assert not any(t.split()[0].lower() in {"yes", "yeah", "hi", "i'm", "it", "i"} for t in titles)
    assert "Caroline" in titles


def test_explain_says_which_slot_a_fact_took_and_what_it_replaced(settings: Settings) -> None:
    leeds = say(settings, "I live in Leeds.", at(3))
    manchester = say(settings, "I moved to Manchester.", at(6, 2))
    consolidate(settings)
    [decision] = explain(settings, manchester)["decisions"]
    assert decision["slot"] == "home" and decision["lifecycle"] == "update"
    assert decision["replaced"] == [leeds]
    [first] = explain(settings, leeds)["decisions"]
    assert first["lifecycle"] == "add" and "the first fact" in first["lifecycle_reason"]


def test_decide_adds_a_restatement_and_the_past() -> None:
    leeds = FactBullet("aaaaaaaaaaa1", at(3).date(), "I live in Leeds.", slot="home")
    again = FactBullet("aaaaaaaaaaa2", at(5).date(), "I'm based in Leeds.", slot="home")
    assert decide(again, reading_of(again.text), [leeds]).action == "add"
    past = FactBullet("aaaaaaaaaaa3", at(5).date(), "I used to live in York.")
    assert decide(past, reading_of(past.text), [leeds]).action == "add"


def test_essentials_holds_the_current_core_facts_and_keeps_the_rest(settings: Settings) -> None:
    path = settings.workspace.view_path("essentials.md")
    path.write_text("# Essentials\n\n## Notes\n\nMy own line.\n")
    say(settings, "Hi, my name is Amara.", at(1))
    say(settings, "I live in Leeds.", at(3))
    say(settings, "I moved to Manchester.", at(6, 2))
    say(settings, "I work at Acme.", at(2))
    consolidate(settings)
    text = path.read_text()
    assert "- Name: Hi, my name is Amara. (since 1 January 2024, [[me/about]])" in text
    assert "- Home: I moved to Manchester. (since 2 June 2024, [[me/home]])" in text
    assert "- Work: I work at Acme." in text and "Leeds" not in text
    assert text.startswith("# Essentials\n\n## Now\n") and text.endswith(
        "## Notes\n\nMy own line.\n"
    )
    say(settings, "I moved to York.", at(8))
    consolidate(settings)
    again = path.read_text()
    assert "- Home: I moved to York." in again and again.count("## Now") == 1


def test_a_long_statement_with_no_topic_of_its_own_continues_the_conversation(
    settings: Settings,
) -> None:
    say(settings, "I'm planning a trip to Kyoto in April, my first time in Japan.", at(3))
    follow = say(
        settings,
        "What would you suggest for someone who wants to see the temples early in the "
        "morning before the crowds arrive, and who also wants to try the local breakfast "
        "places without needing a reservation?",
        at(3).replace(minute=10),
    )
    later = say(
        settings,
        "What would you suggest for someone who wants to see the temples early in the "
        "morning before the crowds arrive, and who likes quiet gardens more than shops?",
        at(5),  # another day: not the same conversation
    )
    outcome = consolidate(settings)
    got = {e.id: e for e in outcome.entries}
    trip = "projects/trip-to-kyoto"  # an endeavour: its own page
    assert got[follow].page == trip and "continues the conversation" in got[follow].reason
    assert got[later].page != trip
