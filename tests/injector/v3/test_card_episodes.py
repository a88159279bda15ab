"""Which episodes a card shows and in what order: the best first, a later
conversation nearly as close taking the last place, conversations newest
first, and an older one marked as such."""

from __future__ import annotations

from injector.v3.episodes import OLDER_NOTE, CardEpisode, render_episodes, with_newest


def episode(session: str, at: str, text: str = "[2024-01-01 10:00] you: hello") -> CardEpisode:
    return CardEpisode(session, at[:10], text, ("user",), f"episode/{session}", at)


def test_a_later_conversation_nearly_as_close_takes_the_last_place() -> None:
    found = [
        (0.61, episode("a", "2024-01-01T10:00")),
        (0.58, episode("b", "2024-02-01T10:00")),
        (0.56, episode("c", "2024-06-01T10:00")),  # later than both, within the margin
        (0.40, episode("d", "2024-09-01T10:00")),  # later still, far off
    ]
    chosen = with_newest(found, 2)
    assert [e.session_id for e in chosen] == ["a", "c"]


def test_nothing_changes_when_no_later_conversation_is_near() -> None:
    found = [
        (0.61, episode("a", "2024-03-01T10:00")),
        (0.58, episode("b", "2024-04-01T10:00")),
        (0.40, episode("c", "2024-09-01T10:00")),
        (0.57, episode("d", "2024-01-01T10:00")),  # near, but older
    ]
    assert [e.session_id for e in with_newest(found, 2)] == ["a", "b"]


def test_conversations_show_newest_first_and_the_older_says_so() -> None:
    old = episode("march", "2024-03-01T10:00", "[2024-03-01 10:00] you: gym at Riverside")
    new = episode("june", "2024-06-01T10:00", "[2024-06-01 10:00] you: gym at Harbour")
    shown = render_episodes([old, new], 2000)
    assert shown.index('session="june"') < shown.index('session="march"')
    march = shown[shown.index('session="march"') :]
    assert OLDER_NOTE in march and OLDER_NOTE not in shown[: shown.index('session="march"')]


def test_an_episode_shows_its_lines_from_the_one_nearest_the_turn() -> None:
    from substrate.index.units import unit_key

    lines = [f"[2024-01-01 10:{i:02d}] you: line {i} " + "x" * 60 for i in range(20)]
    best = lines[15]
    ep = CardEpisode(
        "s", "2024-01-01", "\n".join(lines), ("user",), "episode/s", "2024-01-01T10:00",
        {unit_key(line): (0.9 if line == best else 0.1) for line in lines},
    )  # fmt: skip
    shown = render_episodes([ep], 700)
    assert "line 14 " in shown and "line 15 " in shown and "line 16 " in shown
    assert "line 0 " not in shown
    assert shown.index("line 14 ") < shown.index("line 15 ")  # in the order said
