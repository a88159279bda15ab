"""The conversation log: sessions, messages, search, retention."""

from __future__ import annotations

import pytest

from substrate import Workspace
from substrate.errors import InvalidInputError
from substrate.sessions import NewMessage, SessionLog, fts_query


@pytest.fixture
def log(workspace: Workspace) -> SessionLog:
    return SessionLog(workspace)


def user(text: str, direct: bool = True) -> NewMessage:
    return NewMessage("user", text, direct)


def test_appends_in_order_and_reports_each_session(log: SessionLog) -> None:
    ids = log.append("s1", [user("hello"), NewMessage("assistant", "hi", False)], 10.0)
    assert ids == sorted(ids) and len(ids) == 2
    log.end("s1", "exit", 20.0)
    row = log.session("s1")
    assert row is not None and (row.messages, row.ended, row.end_reason) == (2, 20.0, "exit")
    assert [m.role for m in log.messages("s1")] == ["user", "assistant"]


def test_a_bad_batch_stores_nothing(log: SessionLog) -> None:
    with pytest.raises(InvalidInputError, match=r"messages\[1\]\.role"):
        log.append("s1", [user("kept?"), NewMessage("robot", "no", False)], 1.0)
    assert log.session("s1") is None and log.count() == 0


def test_child_sessions_name_a_root_and_only_a_root(log: SessionLog) -> None:
    log.append("root", [user("a")], 1.0)
    log.append("child", [user("b")], 2.0, parent_id="root")
    with pytest.raises(InvalidInputError, match="itself a child session"):
        log.append("grandchild", [user("c")], 3.0, parent_id="child")
    with pytest.raises(InvalidInputError, match="no session 'ghost'"):
        log.append("orphan", [user("d")], 3.0, parent_id="ghost")
    with pytest.raises(InvalidInputError, match="already exists with parent"):
        log.append("root", [user("e")], 3.0, parent_id="child")


def test_search_can_leave_out_child_sessions(log: SessionLog) -> None:
    log.append("root", [user("I prefer TypeScript")], 1.0)
    log.append("child", [user("I prefer TypeScript")], 2.0, parent_id="root")
    assert {m.session_id for m in log.search(["typescript"])} == {"root", "child"}
    assert {m.session_id for m in log.search(["TypeScript"], root_only=True)} == {"root"}


def test_search_finds_arabic_whatever_its_vowel_marks(log: SessionLog) -> None:
    log.append("s", [user("خلّي الردود مختصرةً")], 1.0)
    assert len(log.search(["خلي"])) == 1 and len(log.search(["مختصرة"])) == 1


def test_search_text_is_never_fts_syntax(log: SessionLog) -> None:
    log.append("s", [user('he said "NEAR" OR * AND (x')], 1.0)
    assert fts_query(['"NEAR" OR *']) == '"near or"'
    assert len(log.search(['NEAR" OR *'])) == 1
    assert log.search(["***"]) == []


def test_a_phrase_matches_its_words_in_order(log: SessionLog) -> None:
    log.append("s", [user("use pnpm test by default"), user("test pnpm later")], 1.0)
    assert [m.text for m in log.search(["pnpm test"])] == ["use pnpm test by default"]


def test_retention_drops_old_messages_and_emptied_sessions(log: SessionLog) -> None:
    log.append("old", [user("ancient")], 1.0)
    log.append("new", [user("recent")], 100.0)
    assert log.prune(50.0) == 1
    assert log.session("old") is None and log.search(["ancient"]) == []
    assert log.session("new") is not None


def test_the_log_survives_reopening(workspace: Workspace) -> None:
    first = SessionLog(workspace)
    first.append("s", [user("kept")], 1.0)
    first.close()
    assert [m.text for m in SessionLog(workspace).messages("s")] == ["kept"]


def test_a_session_is_titled_by_the_persons_first_line(log: SessionLog) -> None:
    long = "Could you help me plan " + "a very long trip " * 10 + "\nsecond line"
    log.append("a", [NewMessage("assistant", "Hello!", False), NewMessage("user", long, True)], 1.0)
    log.append("b", [NewMessage("assistant", "Only me here.", False)], 2.0)
    titled = {s.id: s.title for s in log.sessions()}
    assert titled["a"].startswith("Could you help me plan a very long trip")
    assert titled["a"].endswith("…") and len(titled["a"]) <= 81 and "second" not in titled["a"]
    assert titled["b"] == "b"  # no user turn: the id
    assert log.session("a").as_json()["title"] == titled["a"]  # type: ignore[union-attr]


def test_a_fact_s_messages_lead_to_the_window_that_holds_the_newest(log: SessionLog) -> None:
    """Generated sessions logged interleaved: the window found for a fact's
    lineage is the one the index cut around its newest logged message, of
    that message's own session; ids no longer logged lead nowhere."""
    import random

    from substrate.sessions import WindowFinder
    from substrate.sessions.episodes import episodes_of

    rng = random.Random(3)
    finder = WindowFinder(log)
    ids: dict[str, list[int]] = {"a": [], "b": [], "c": []}
    for n in range(60):
        session = rng.choice(sorted(ids))
        text = f"turn {n} " + "words " * rng.randint(5, 120)
        ids[session] += log.append(session, [user(text)], float(n))
    for session, logged in ids.items():
        windows = episodes_of(log.messages(session))
        for message in rng.sample(logged, 5):
            older = rng.sample([i for i in logged if i < message], min(2, logged.index(message)))
            found = finder.holding([*older, message])
            assert found is not None and found.session_id == session
            assert found.slug in {w.slug for w in windows}
            assert found.first_id <= message <= found.last_id
    for _ in range(3):  # a conversation that grows is cut again
        [grown] = log.append("a", [user("later " + "words " * 150)], 99.0)
        found = finder.holding([grown])
        assert found is not None and found.first_id <= grown <= found.last_id
    assert finder.holding([10_000, 10_001]) is None
    assert finder.holding([]) is None
