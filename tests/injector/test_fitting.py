"""Fitting a page onto the card: whole units, the best first, the room used."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from injector.v3 import fitting
from injector.v3.fitting import fit, ranked, shown, size, units_of
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


ASKED_PAIRS = [
    ("Have you watched any good movies lately?", "Yes, Little Women, twice."),
    ("What did the vet say about the limp?", "Only a sprain, two weeks of rest."),
    ("Where are you staying in Porto?", "A flat above the old tram depot."),
    ("How did the interview go?", "They offered me the job on the spot."),
    ("¿Cuándo empieza el curso?", "El lunes a las nueve."),
    ("متى يبدأ الدرس؟", "يوم الاثنين في التاسعة."),
]
CHAT = [
    "Nate: Morning! Grey weather again.",
    "Joanna: Same here, I stayed in and wrote.",
    "Nate: Nice, writing days are the best.",
    "Joanna: Thanks! Busy week ahead though.",
]


def _chat(question: str, answer: str, at: int) -> str:
    lines = [*CHAT[:at], f"Joanna: {question}", f"Nate: {answer}", *CHAT[at:]]
    return "\n".join(lines)


def test_a_question_s_answer_leads_when_the_turn_resembles_the_question() -> None:
    """The line most like a turn asking about a topic is someone asking about
    it; the line after it answers. Generated over pairs (English, Spanish,
    Arabic) and places: the answer leads, with the question's whole score, and
    with no score at all the lines keep their order."""
    for question, answer in ASKED_PAIRS:
        for at in range(len(CHAT) + 1):
            chunk = _chat(question, answer, at)
            asked = next(u for u in split_units(chunk) if question in u)
            units = units_of(chunk, set(), {unit_key(asked): 0.5})
            assert units[0].text.endswith(answer), (question, at)
            assert units[0].score == 4 * 0.5
            assert [u.text for u in units_of(chunk, set())] == split_units(chunk)


def test_a_unit_goes_on_from_the_one_before_it() -> None:
    """A sentence that says "they" names no one: it scores at least half of the
    sentence before it, so it outranks a sentence unrelated to the turn."""
    line = (
        "Polonia Warsaw won the Ekstraklasa Championship in 2000 against every forecast. "
        "They also won the country's championship in 1946, and won the cup twice as well. "
        "The home ground is on Konwiktorska Street, a short walk north of the Old Town. "
        "Tickets are sold at the gate on match days and online in the week before them. "
        "The club shop opens on Saturdays, with scarves and shirts from every season "
        "of the last forty years, and a small museum of trophies behind the counter."
    )
    assert len(line) > 400
    units = split_units(line)
    assert len(units) >= 5
    named = {unit_key(units[0]): 0.6, unit_key(units[2]): 0.2, unit_key(units[4]): 0.9}
    ranked = [u.text for u in units_of(line, set(), named)]
    assert ranked.index(units[1]) < ranked.index(units[2])
    alone = [u.text for u in units_of(line, set(), {unit_key(units[2]): 0.2})]
    assert alone[0] == units[2]  # with nothing before it to go on from, the named one leads


def test_a_dated_fact_is_read_alone() -> None:
    """Facts made whole by consolidation neither take a score from the fact
    before them nor pass one on, a question among them included."""
    facts = (
        "- [1 May 2024] Is the new gym worth it? I joined it in April.\n"
        "- [2 May 2024] My sister lives in Gdansk.\n"
        "- [3 May 2024] The boiler was serviced in March."
    )
    units = split_units(facts)
    scores = {u.text: u.score for u in units_of(facts, set(), {unit_key(units[0]): 0.5})}
    assert scores == {units[0]: 4 * 0.5, units[1]: 0.0, units[2]: 0.0}


def _line(seed: int, at: int) -> str:
    return f"Line {at} of note {seed}: the harbour wall, the ferry times and the tides."


def test_the_line_before_the_lead_goes_on_before_a_weaker_match_elsewhere() -> None:
    """The line before the lead names what the lead only refers to, or says
    what a question worded its own way asks (the lead holds the question's
    other words). Generated over page lengths and scores: with the lead last
    in its chunk and room for one more line, the card shows the line before
    it rather than another page's weaker match (it used to score nothing and
    lost); a dated fact lends its neighbours nothing."""
    rng = random.Random(62)
    for seed in range(40):
        lines = [_line(seed, at) for at in range(rng.randint(2, 7))]
        chunk = "\n".join(lines)
        near = rng.uniform(0.3, 0.7)
        page = units_of(chunk, set(), {unit_key(lines[-1]): near})
        # another page, led by a weaker line, with a match of its own away
        # from its lead: above half that lead, below half this page's lead
        other_lines = [_line(seed + 100, at) for at in range(4)]
        weaker = near * rng.uniform(0.3, 0.45)
        other = units_of(
            "\n".join(other_lines),
            set(),
            {
                unit_key(other_lines[3]): near * rng.uniform(0.46, 0.6),
                unit_key(other_lines[0]): weaker,
            },
        )
        leads = size(page[:1], False) + size(other[:1], False)
        room = 200 + leads + size(page[:2], False) - size(page[:1], False) + 5  # one more line
        picked = fit([page, other], [100, 100], [False, False], room)
        assert [u.text for u in picked[0]] == [lines[-1], lines[-2]], seed
        assert [u.text for u in picked[1]] == [other_lines[3]], seed
        assert shown(picked[0]).split("\n") == [lines[-1], lines[-2]]
    facts = "\n".join(f"- [{d} May 2024] {_line(0, d)}" for d in (1, 2, 3))
    dated = split_units(facts)
    scores = [u.score for u in units_of(facts, set(), {unit_key(dated[2]): 0.5})]
    assert sorted(scores) == [0.0, 0.0, 2.0]


def _placeholder(at: tuple[int, int, int], length: int, fact: int, asks: int) -> str:
    """A unit's stand-in: as long as the unit was once rendered, a fact where
    it was a fact, a question where it asked one."""
    head = ("- [" if fact else "") + "u{}.{}.{} ".format(*at)
    return head + "x" * max(0, length - len(head) - 1) + ("?" if asks else "x")


def _shows_evidence(row: dict[str, Any]) -> bool:
    """Whether the card fitted from one recorded question's pages shows a unit
    that holds its evidence."""
    pages, evidence = [], set()
    for p, page in enumerate(row["pages"]):
        spans, own = [], []
        for s, span in enumerate(page["units"]):
            texts: list[str] = []
            own_scores: list[float] = []
            for a, (length, score, fact, asks, holds) in enumerate(span):
                texts.append(_placeholder((p, s, a), length, fact, asks))
                if holds:
                    evidence.add(texts[-1])
                own_scores.append(score)
            spans.append(texts)
            own.append(own_scores)
        pages.append(ranked(spans, own))
    quoted = [bool(q) for q in row["quoted"]]
    picked = fit(pages, row["heads"], quoted, row["room"], row["leads"])
    return any(u.text in evidence for units in picked for u in units)


def test_on_development_questions_the_lead_s_neighbours_bring_the_answering_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The card's inputs recorded for questions of the even half (LoCoMo,
    LongMemEval, notes, XQuAD, their rewritten and unshared strata): each
    page's units as their rendered length, their own score against the turn,
    whether they are a fact or a question and whether they hold the evidence
    line; the card's room, heads and search's first pages. Every question
    whose card line the lead's neighbours change, either way, and 40 they
    leave alone. With the neighbours scoring only what they say, fewer cards
    hold the line, and no set gains by it. Recorded by `python
    bench/card_lines.py ../shared/data --half even --out FILE`."""
    path = Path(__file__).parents[1] / "data" / "card_lines_even.json.gz"
    with gzip.open(path, "rt") as f:
        rows = json.load(f)
    shipped = [_shows_evidence(row) for row in rows]
    monkeypatch.setattr(fitting, "beside_lead", lambda units: units)
    alone = [_shows_evidence(row) for row in rows]
    assert sum(shipped) >= sum(alone) + 10
    for name in {row["set"] for row in rows}:
        on = [i for i, row in enumerate(rows) if row["set"] == name]
        assert sum(shipped[i] for i in on) >= sum(alone[i] for i in on), name
