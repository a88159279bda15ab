"""The offline extractor: each family of durable statement in English and Arabic,
and the near-misses next to each (questions, requests, hedges, small talk)."""

from __future__ import annotations

import pytest

from substrate.curation.statements import durable_statements


def kept(turn: str) -> list[str]:
    return [s.text for s in durable_statements(turn)]


@pytest.mark.parametrize(
    ("family", "turn", "statement"),
    [
        ("self", "I'm a nurse at the children's hospital.", None),
        ("self", "My name is Priya Raman.", None),
        ("move", "Oh, and I moved to Manchester last June.", "I moved to Manchester last June."),
        ("job", "I started a new job at Acme as a data engineer.", None),
        ("role", "I was promoted to senior engineer in March.", None),
        ("relationship", "My sister Anika just moved to Berlin.", None),
        ("relationship", "We're not married yet but we've been together for three years.", None),
        ("pet", "I adopted a beagle called Miso from the shelter.", None),
        ("possession", "I bought a used Honda Civic last week.", None),
        ("health", "I'm allergic to peanuts and shellfish.", None),
        ("diet", "I'm vegetarian since college.", None),
        ("plan", "I'm planning a trip to Japan next April with my wife.", None),
        ("habit", "I've been playing volleyball in a league for two months.", None),
        (
            "preference",
            "btw I really prefer dark mode in every app",
            "I really prefer dark mode in every app.",
        ),
        ("preference", "I'd rather get answers in bullet points.", None),
        ("preference", "Call me Priya, not Ms Raman.", None),
        ("preference", "Please keep answers short, I hate long replies.", None),
        ("ar:move", "انتقلت إلى دبي الشهر الماضي.", None),
        ("ar:job", "أعمل مهندسة في شركة أرامكو.", None),
        ("ar:family", "أختي سارة تسكن في عمّان.", None),
        ("ar:pet", "عندي قطة اسمها لولو.", None),
        ("ar:preference", "أنا أفضّل الشاي على القهوة.", None),
        ("ar:name", "ناديني أبو خالد من فضلك.", None),
    ],
)
def test_each_family_is_kept_in_the_speakers_words(
    family: str, turn: str, statement: str | None
) -> None:
    assert kept(turn) == [statement or turn], family


@pytest.mark.parametrize(
    "turn",
    [
        "Can you help me plan a trip to Japan?",
        "Where should I move if I like the sea?",
        "I'm looking for some recommendations on new games to play.",
        "I was wondering if you could suggest a good collar for my dog.",
        "I think that's a great idea, thanks!",
        "I hope you have a good day.",
        "You mentioned that I should try yoga.",
        "I really like the sound of Option 1.",
        "I'm really thankful for all the time we had.",
        "I spent ages restoring it.",
        "It's tough when we have to confront our own health challenges.",
        "The weather in Lisbon is lovely in May.",
        "ok",
        "هل يمكنك مساعدتي في كتابة رسالة؟",
        "أبحث عن مطعم جيد في الرياض.",
        "الطقس جميل اليوم.",
    ],
)
def test_questions_requests_hedges_and_small_talk_are_not_kept(turn: str) -> None:
    assert kept(turn) == []


def test_a_turn_keeps_its_statements_and_drops_its_request() -> None:
    turn = (
        "I'm looking to book a flight from Boston to Miami, can you help? By the way, "
        "I'm still recovering from my American Airlines flight from LAX, which was delayed "
        "by 2 hours. Dr. Patel said I should rest."
    )
    assert kept(turn) == [
        "I'm still recovering from my American Airlines flight from LAX, which was delayed "
        "by 2 hours."
    ]


def test_a_fact_in_another_clause_of_a_request_is_kept() -> None:
    turn = "Can you suggest a playlist, I have 20 playlists on Spotify already."
    assert kept(turn) == ["I have 20 playlists on Spotify already."]
    assert kept("I see, that makes sense now.") == []


def test_our_own_blocks_echoed_into_a_turn_are_never_read() -> None:
    turn = "<memory>\n- I moved to Porto.\n</memory>\nThanks, that is all."
    assert kept(turn) == []


def test_a_long_turn_is_read_in_one_pass() -> None:
    turn = "I moved to Porto. " * 2000 + "x" * 5000
    assert kept(turn) == ["I moved to Porto."]
