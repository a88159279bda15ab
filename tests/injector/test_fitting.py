"""Fitting a page onto the card: whole units, the best first, the room used."""

from __future__ import annotations

from injector.v3.fitting import fit, shown, size, units_of
from substrate.index.excerpts import SPAN_BREAK
from substrate.index.units import split_units, unit_key

CHUNK = (
    "- [1 March 2024] The office moved our team to the fifth floor.\n"
    "- [2 March 2024] My knee surgery went fine and the office sent flowers.\n"
    "- [3 March 2024] A throat specialist said my vocal cords need rest."
)


def test_a_unit_is_a_fact_with_what_it_replaced_or_a_sentence_of_a_long_line() -> None:
    chain = "- [2 June 2024] I moved to York.\n  - [1 March 2024] was: I live in Leeds. (until 2 June 2024)"
    assert split_units(chain) == [chain]
    long = "First sentence here. " * 30
    assert all(len(u) <= 400 for u in split_units(long)) and len(split_units(long)) == 30


def test_the_lead_is_the_unit_nearest_in_meaning_when_no_word_is_shared() -> None:
    vocal = split_units(CHUNK)[2]
    units = units_of(CHUNK, {"sing"}, {unit_key(vocal): 0.3, unit_key(split_units(CHUNK)[1]): 0.05})
    assert units[0].text == vocal
    assert shown(units[:1]) == vocal
    plain = units_of(CHUNK, {"knee"})  # without meaning, the words decide
    assert "knee" in plain[0].text


def test_later_chunks_come_after_the_best_one_and_skips_are_marked() -> None:
    excerpt = CHUNK + SPAN_BREAK + "- [9 May 2024] Physio twice a week for the knee."
    units = units_of(excerpt, {"floor"})
    assert units[0].text.endswith("fifth floor.") and units[-1].text.endswith("for the knee.")
    assert shown([units[0], units[-1]]).split("\n")[1] == "…"


def test_leads_first_then_the_best_units_by_score_wherever_they_stand() -> None:
    first = units_of(CHUNK, {"office"})  # two units share the word, one does not
    second = units_of(CHUNK, {"vocal", "cords", "rest"})
    one = size(first[:1], False)
    picked = fit([first, second], [100, 100], [False, False], 2 * (100 + one) + 10)
    assert [len(p) for p in picked] == [1, 1]  # room for each lead only
    room = 2 * (100 + one) + size(first[1:2], False) + 40
    picked = fit([first, second], [100, 100], [False, False], room)
    assert [u.text for u in picked[0]] == [first[0].text, first[1].text]  # "office", then "office"
    picked = fit([first, second], [100, 100], [False, False], 5000)
    assert [len(p) for p in picked] == [3, 3]  # then what is left
    assert fit([first, second], [100, 100], [False, False], 50) == [[], []]


def test_search_s_first_pages_get_their_leads_before_other_units_compete() -> None:
    rich = units_of(CHUNK, {"office", "floor", "knee", "throat"})  # three units, each scoring
    low = units_of("- [4 March 2024] The plumber fixed the boiler.", set())  # one unit, no score
    one, tail = size(rich[:1], False), size(low[:1], False)
    room = 3 * 100 + 2 * one + tail + 10  # the leads, and not every other unit besides
    pages = [rich, rich, rich, low]
    plain = fit(pages, [100] * 4, [False] * 4, room)
    assert plain[3] == []  # without a say, the better units of the first pages take the room
    kept = fit(pages, [100] * 4, [False] * 4, room, leads=[3])
    assert kept[3] == low[:1] and kept[0] and kept[1]  # the first two leads, then search's page
