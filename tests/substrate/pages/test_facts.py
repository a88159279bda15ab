"""The fact lifecycle in the page format: current, superseded, retracted; hand edits."""

from __future__ import annotations

from datetime import UTC, date, datetime

from substrate.pages import (
    FactBullet,
    fact_bullets,
    filed_ids,
    new_page_text,
    parse_page,
    section_links,
    split_facts,
    with_facts,
)

LEEDS = FactBullet("aaaaaaaaaaa1", date(2024, 3, 1), "I live in Leeds.", slot="home")
TEA = FactBullet("aaaaaaaaaaa2", date(2024, 3, 2), "I prefer tea.", "captured", slot="pref:drink")
MANCHESTER = FactBullet("aaaaaaaaaaa3", date(2024, 6, 2), "I moved to Manchester.", slot="home")


def page_with(*bullets: FactBullet) -> str:
    return new_page_text("Home", list(bullets), origin=date(2024, 3, 1))


def test_a_superseded_fact_moves_under_earlier_with_a_note_saying_until_when_and_by_what() -> None:
    text = with_facts(page_with(LEEDS, TEA), [MANCHESTER], [LEEDS.superseded_by(MANCHESTER)])
    section = text[text.index("## Facts") :]
    current, earlier = section.split("### Earlier")
    assert "I moved to Manchester." in current and "I prefer tea." in current
    assert "Leeds" not in current
    assert (
        "- [2024-03-01] I live in Leeds. _(until 2024-06-02; replaced by: I moved to Manchester.)_"
        " <!-- e:aaaaaaaaaaa1 slot:home status:superseded by:aaaaaaaaaaa3 until:2024-06-02 -->"
    ) in earlier


def test_the_lifecycle_round_trips_through_the_file() -> None:
    gone = TEA.retracted(date(2024, 7, 1), by="aaaaaaaaaaa3")
    text = with_facts(page_with(LEEDS, TEA), [MANCHESTER], [LEEDS.superseded_by(MANCHESTER), gone])
    parsed = {b.entry_id: b for b in fact_bullets(text)}
    assert parsed["aaaaaaaaaaa1"] == LEEDS.superseded_by(MANCHESTER)
    assert parsed["aaaaaaaaaaa1"].text == "I live in Leeds."  # the note is not the fact
    assert parsed["aaaaaaaaaaa2"] == gone and parsed["aaaaaaaaaaa2"].source == "captured"
    assert parsed["aaaaaaaaaaa3"] == MANCHESTER
    assert with_facts(text) == text  # nothing to change rewrites nothing
    assert set(filed_ids(text)) == {"aaaaaaaaaaa1", "aaaaaaaaaaa2", "aaaaaaaaaaa3"}


def test_a_bullet_moved_under_earlier_by_hand_is_no_longer_current() -> None:
    text = page_with(LEEDS, MANCHESTER)
    lines = text.split("\n")
    leeds = next(line for line in lines if "Leeds" in line)
    lines.remove(leeds)
    lines.insert(lines.index("<!-- /memory:facts -->"), "### Earlier")
    lines.insert(lines.index("<!-- /memory:facts -->"), leeds)
    parsed = {b.entry_id: b for b in fact_bullets("\n".join(lines))}
    assert parsed["aaaaaaaaaaa1"].status == "superseded"
    assert parsed["aaaaaaaaaaa3"].current


def test_a_bullet_moved_back_up_by_hand_is_current_again_and_keeps_its_text() -> None:
    text = with_facts(page_with(LEEDS), [MANCHESTER], [LEEDS.superseded_by(MANCHESTER)])
    lines = text.split("\n")
    leeds = next(line for line in lines if "Leeds" in line)
    lines.remove(leeds)
    lines.insert(lines.index("## Facts") + 1, leeds)
    edited = "\n".join(lines)
    parsed = {b.entry_id: b for b in fact_bullets(edited)}
    assert parsed["aaaaaaaaaaa1"].current
    assert parsed["aaaaaaaaaaa1"].text == "I live in Leeds."
    # a later write leaves the person's line as they left it
    tea = with_facts(edited, [TEA])
    assert leeds in tea.split("\n")


def test_unknown_marker_words_and_hand_text_outside_the_section_are_kept() -> None:
    text = "# Home\n\nMy own notes.\n\n" + page_with(LEEDS).split("---\n# Home\n", 1)[1]
    text = text.replace("slot:home -->", "slot:home mood:happy -->")
    on_page = fact_bullets(text)[0]
    after = with_facts(text, [MANCHESTER], [on_page.superseded_by(MANCHESTER)])
    assert after.startswith("# Home\n\nMy own notes.\n")
    old = fact_bullets(after)[-1]
    assert old.attrs == {"mood": "happy"} and old.status == "superseded"
    assert "mood:happy" in after


def test_the_related_line_gathers_links_once_and_counts_as_the_pages_links() -> None:
    text = with_facts(page_with(LEEDS), links=["people/anika", "acme"])
    text = with_facts(text, [TEA], links=["acme", "leeds"])
    assert section_links(text) == ("people/anika", "acme", "leeds")
    assert text.count("Related: ") == 1
    assert text.endswith(
        "\n\nRelated: [[people/anika]], [[acme]], [[leeds]]\n<!-- /memory:facts -->\n"
    )
    page = parse_page("me/home", text.encode(), datetime(2024, 1, 1, tzinfo=UTC))
    assert {link.target for link in page.links} == {"people/anika", "acme", "leeds"}


def test_readers_see_the_current_value_first_and_the_old_one_as_was_until() -> None:
    text = with_facts(page_with(LEEDS, TEA), [MANCHESTER], [LEEDS.superseded_by(MANCHESTER)])
    _, items = split_facts(text)
    chain = next(i for i in items if "Manchester" in i.text)
    assert chain.text == (
        "- [2 June 2024] I moved to Manchester.\n"
        "  - [1 March 2024] was: I live in Leeds. (until 2 June 2024)"
    )
    assert chain.current
    assert not any("Leeds" in i.text for i in items if i is not chain)  # shown once


def test_a_fact_retracted_on_its_own_is_no_longer_shown_to_readers() -> None:
    text = with_facts(page_with(LEEDS, TEA), changed=[TEA.retracted(date(2024, 5, 1))])
    _, items = split_facts(text)
    assert [i.text for i in items] == ["- [1 March 2024] I live in Leeds."]
    assert "no longer true" in text  # the page itself still tells it


def test_a_page_is_as_of_its_newest_current_fact() -> None:
    text = with_facts(page_with(LEEDS), [MANCHESTER], [LEEDS.superseded_by(MANCHESTER)])
    page = parse_page("me/home", text.encode(), datetime(2020, 1, 1, tzinfo=UTC))
    assert page.fresh_at == datetime(2024, 6, 2, tzinfo=UTC)
    backdated = with_facts(page_with(MANCHESTER), changed=[LEEDS.superseded_by(MANCHESTER)])
    page = parse_page("me/home", backdated.encode(), datetime(2020, 1, 1, tzinfo=UTC))
    assert page.fresh_at == datetime(2024, 6, 2, tzinfo=UTC)


def test_a_backdated_fact_is_history_from_its_own_day() -> None:
    older = FactBullet("aaaaaaaaaaa4", date(2024, 1, 5), "I live in York.", slot="home")
    newer_than_it = older.superseded_by(LEEDS)
    assert newer_than_it.until == date(2024, 3, 1)
    later = LEEDS.superseded_by(older)  # never "until" a day before the fact itself
    assert later.until == LEEDS.day


def test_earlier_facts_stand_newest_first_whatever_order_they_were_replaced_in() -> None:
    import random

    days = [date(2019 + n % 7, 1 + n % 12, 1 + n % 27) for n in range(9)]
    facts = [FactBullet(f"bbbbbbbbbb{n:02d}", d, f"Fact {n}.") for n, d in enumerate(days)]
    text = page_with(*facts)
    order = list(range(9))
    random.Random(3).shuffle(order)
    for n in order:  # replaced one at a time, in no order of their days
        new = FactBullet(f"cccccccccc{n:02d}", date(2026, 1, 1), f"New fact {n}.")
        text = with_facts(text, [new], [facts[n].superseded_by(new)])
    shown = [b.day for b in fact_bullets(text) if not b.current]
    assert len(shown) == 9 and shown == sorted(shown, reverse=True)
