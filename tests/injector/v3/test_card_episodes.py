"""Which episodes a card shows and in what order. On a turn about how things
stand now, a later conversation nearly as close takes the last place,
conversations show newest first and an older one says it is older; on any
other turn the episodes stay in the order search ranked them."""

from __future__ import annotations

import itertools

import pytest

from injector.trust import is_current_turn
from injector.v3.episodes import OLDER_NOTE, as_of_now, card_episodes, render_episodes
from substrate.index import Hit


def hit(session: str, at: str, cosine: float, said: str = "hello") -> Hit:
    return Hit(
        slug=f"episode/{session}",
        title=session,
        kind="episode",
        score=cosine,
        dense_rank=None,
        sparse_rank=None,
        dense_score=cosine,
        sparse_score=None,
        excerpt=f"[{at[:10]} 10:00] you: {said}",
        fresh_at=None,
        source=None,
        origin_date=None,
        meta={"session_id": session, "from": at, "to": at, "roles": ["user"]},
    )


FOUND = [
    hit("a", "2024-01-01T10:00", 0.61, "my gym is Riverside"),
    hit("b", "2024-02-01T10:00", 0.58),
    hit("c", "2024-06-01T10:00", 0.56, "switched to the Harbour gym"),  # later, within the margin
    hit("d", "2024-09-01T10:00", 0.40),  # later still, far off
]


def test_on_a_turn_about_now_a_later_conversation_nearly_as_close_takes_the_last_place() -> None:
    chosen = card_episodes(FOUND, 0.2, current=True)
    assert [e.session_id for e in chosen] == ["c", "a"]  # newest first
    assert [e.older for e in chosen] == [False, True]


def test_on_any_other_turn_the_episodes_stay_in_search_order() -> None:
    chosen = card_episodes(FOUND, 0.2)
    assert [e.session_id for e in chosen] == ["a", "b"]
    assert not any(e.older for e in chosen)


def test_nothing_is_swapped_when_no_later_conversation_is_near() -> None:
    found = [
        (0.61, card_episodes([FOUND[0]], 0.2)[0]),
        (0.58, card_episodes([FOUND[1]], 0.2)[0]),
        (0.57, card_episodes([hit("z", "2023-01-01T10:00", 0.57)], 0.2)[0]),  # near, but older
    ]
    assert [e.session_id for e in as_of_now(found, 2)] == ["b", "a"]


def test_the_conversation_that_last_updated_a_page_the_turn_found_is_read_first_about_now() -> None:
    """A later conversation reached from the turn's page by its lineage takes the
    last place on a turn about now however far its cosine trails; on any other
    turn it only follows the ones search found, and an older one never swaps."""
    linked = hit("d", "2024-09-01T10:00", 0.25, "Crumb moved to Flutter")
    chosen = card_episodes([*FOUND[:2], linked], 0.2, current=True, linked={"d"})
    assert [e.session_id for e in chosen] == ["d", "a"] and chosen[1].older
    assert [e.session_id for e in card_episodes([*FOUND[:2], linked], 0.2, current=True)] == [
        "b",
        "a",
    ]
    assert [e.session_id for e in card_episodes([FOUND[0], linked], 0.2, linked={"d"})] == [
        "a",
        "d",
    ]
    old = hit("z", "2023-01-01T10:00", 0.25)
    chosen = card_episodes([*FOUND[:2], old], 0.2, current=True, linked={"z"})
    assert [e.session_id for e in chosen] == ["b", "a"]


def test_the_older_conversation_is_shown_after_the_newer_and_says_so() -> None:
    shown = render_episodes(card_episodes(FOUND, 0.2, current=True), 2000)
    assert shown.index('session="c"') < shown.index('session="a"')
    older = shown[shown.index('session="a"') :]
    assert OLDER_NOTE in older and OLDER_NOTE not in shown[: shown.index('session="a"')]


NOW_WORDS = ["now", "currently", "these days", "at the moment", "still", "so far", "nowadays"]
SUBJECTS = ["gym", "job", "car", "flat", "therapist", "salary", "coffee order"]


@pytest.mark.parametrize(("word", "subject"), list(itertools.product(NOW_WORDS, SUBJECTS)))
def test_a_turn_asking_for_the_value_now_is_a_turn_about_now(word: str, subject: str) -> None:
    assert is_current_turn(f"Which {subject} do I have {word}?")
    assert is_current_turn(f"What about my {subject} {word}?")


@pytest.mark.parametrize(
    "turn",
    [
        "How often do I see Dr. Johnson?",
        "How many trips have I taken my camera on?",
        "Is my passport valid?",
        "ما هو عملي الحالي؟",
        "أين أسكن الآن؟",
        "هل ما زال موعدي يوم الخميس؟",
    ],
)
def test_the_person_s_present_in_either_language_is_a_turn_about_now(turn: str) -> None:
    assert is_current_turn(turn)


@pytest.mark.parametrize(
    ("name", "subject"), list(itertools.product(["Caroline", "Melanie", "John"], SUBJECTS))
)
def test_a_question_about_someone_s_past_is_not_about_now(name: str, subject: str) -> None:
    assert not is_current_turn(f"When did {name} buy the {subject}?")
    assert not is_current_turn(f"What did I say about the {subject} last week?")
