"""The offline extractor: each family of durable statement in English and Arabic,
and the near-misses next to each (questions, requests, hedges, small talk)."""

from __future__ import annotations

import pytest

from substrate.curation.statements import durable_statements


def kept(turn: str) -> list[str]:
    return [s.text for s in durable_statements(turn, None)]


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
        ("habit", "I wake up at 6:30 AM and meditate for 20 minutes.", None),
        ("job", "I lead a team of 4 engineers in my new role as Senior Software Engineer.", None),
        ("event", "I spent two weeks traveling solo around the country.", None),
        ("event", "I actually recently had a bad case of bronchitis.", None),
        (
            "framed",
            "I'm glad I finally got my white Adidas sneakers cleaned last month.",
            "I finally got my white Adidas sneakers cleaned last month.",
        ),
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
        "I spent a lot of time there.",
        "I'd rather not talk about the book right now.",
        "I'm glad you liked it.",
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


def test_a_fact_after_a_clause_about_someone_else_is_kept() -> None:
    turn = "The puppy Rex is still in potty-training; I've been using pads from Chewy for a month."
    assert kept(turn) == ["I've been using pads from Chewy for a month."]


def test_the_judge_reads_every_statement_but_preferences_and_arabic() -> None:
    turn = (
        "I moved to Porto last month. Please keep answers short. "
        "Call me Priya, not Ms Raman. انتقلت إلى دبي الشهر الماضي."
    )
    asked: list[str] = []

    def refuse_all(text: str) -> bool:
        asked.append(text)
        return False

    kept_now = [s.text for s in durable_statements(turn, refuse_all)]
    assert kept_now == [
        "Please keep answers short.",
        "Call me Priya, not Ms Raman.",
        "انتقلت إلى دبي الشهر الماضي.",
    ]
    assert asked == ["I moved to Porto last month."]
    assert next(s.text for s in durable_statements(turn, lambda _: True)) == asked[0]


def test_our_own_blocks_echoed_into_a_turn_are_never_read() -> None:
    turn = "<memory>\n- I moved to Porto.\n</memory>\nThanks, that is all."
    assert kept(turn) == []


def test_a_long_turn_is_read_in_one_pass() -> None:
    turn = "I moved to Porto. " * 2000 + "x" * 5000
    assert kept(turn) == ["I moved to Porto."]
