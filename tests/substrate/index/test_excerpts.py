"""A value no longer current is the first line an excerpt gives up, never the
current one; a question about the old value still gets it."""

from __future__ import annotations

from substrate.index import excerpt_for, tokenize

CHUNK = (
    "- [2 June 2024] I moved to Manchester, near the canal.\n"
    "  - [1 March 2024] was: I live in Leeds, in a flat near Hyde Park. (until 2 June 2024)\n"
    "- [5 May 2024] I rent with two friends from work."
)


def test_when_room_is_short_the_old_value_goes_first() -> None:
    shown = excerpt_for(CHUNK, set(tokenize("where do I live now")), limit=110)
    assert "Manchester" in shown and "Leeds" not in shown


def test_a_question_about_the_old_value_still_gets_it() -> None:
    shown = excerpt_for(CHUNK, set(tokenize("where did I live before, in Leeds?")), limit=110)
    assert "Leeds" in shown


def test_an_old_value_is_shown_under_the_value_now_when_both_fit() -> None:
    shown = excerpt_for(CHUNK, set(tokenize("where did I live before, in Leeds?")), limit=150)
    assert shown.index("Manchester") < shown.index("was: I live in Leeds")
