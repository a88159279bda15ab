"""Forgetting a logged session or message takes along what was learned only from
it: captured facts (buffered or filed), promoted profile lines, curation
candidates; a fact the person said elsewhere too stays, its lineage
repointed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from substrate import InvalidInputError, NotFoundError, Settings, read_buffer
from substrate.consolidation import consolidate
from substrate.curation import capture_offline
from substrate.curation.store import Candidate, CurationStore, Operation
from substrate.forgetting import forget, forget_conversation
from substrate.lineage import read_tombstones
from substrate.pages import fact_bullets, load_page_index
from substrate.profile import profile_path
from substrate.promotion import PromotionStore, record_turns
from substrate.sessions import NewMessage, SessionLog, open_session_log
from substrate.sessions.episodes import episodes_of


@pytest.fixture
def log(settings: Settings) -> Iterator[SessionLog]:
    opened = open_session_log(settings.workspace)
    yield opened
    opened.close()


def said(settings: Settings, log: SessionLog, session: str, *turns: str) -> list[int]:
    """Log the person's turns and capture them (the offline extractor)."""
    ids, _ = record_turns(
        settings, log, session, [NewMessage("user", t, True) for t in turns], time.time()
    )
    capture_offline(settings, log, session, time.time())
    return ids


def holding(root: Path, words: str) -> list[str]:
    needle = words.casefold()
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and needle in p.read_bytes().decode("utf-8", "replace").casefold()
    )


def captured_facts(settings: Settings) -> dict[str, str]:
    """Every captured fact, buffered or filed: id -> words."""
    out = {e.id: e.text for e in read_buffer(settings) if e.source == "captured"}
    for entry in load_page_index(settings.workspace).entries.values():
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        out |= {b.entry_id: b.text for b in fact_bullets(text) if b.source == "captured"}
    return out


def test_a_forgotten_session_takes_the_facts_captured_from_it_buffered_or_filed(
    settings: Settings, log: SessionLog
) -> None:
    said(settings, log, "chat-a", "My neighbour's parrot is called Xylophanta.")
    consolidate(settings)  # filed on a page
    said(settings, log, "chat-a", "I've started learning Scottish Gaelic on Duolingo.")
    assert any("Gaelic" in e.text for e in read_buffer(settings))  # still in the buffer
    done = forget_conversation(settings, log, "chat-a", via="http").answer
    assert len(done["derived"]["facts"]) == 2
    assert captured_facts(settings) == {}
    for words in ("Xylophanta", "Gaelic"):
        assert holding(settings.workspace.root / "memory", words) == []
    consolidate(settings)  # nothing left to file a page from
    assert not [p for p in settings.workspace.concepts_dir.rglob("*.md") if "gaelic" in p.name]
    graves = read_tombstones(settings.workspace)
    assert graves.sessions["chat-a"]["via"] == "http"
    assert set(graves.sessions["chat-a"]["messages"]) == set(done["messages"])


def test_a_fact_said_in_another_session_too_stays_with_its_lineage_repointed(
    settings: Settings, log: SessionLog
) -> None:
    said(settings, log, "chat-a", "I work as a nurse at the Western General.")
    later = said(settings, log, "chat-b", "I work as a nurse at the Western General.")
    consolidate(settings)
    done = forget_conversation(settings, log, "chat-a").answer
    assert done["derived"]["facts"] == [] and len(done["derived"]["repointed"]) == 1
    facts = captured_facts(settings)
    assert list(facts.values()) == ["I work as a nurse at the Western General."]
    bullet = next(
        b
        for e in load_page_index(settings.workspace).entries.values()
        for b in fact_bullets((settings.workspace.concepts_dir / e.path).read_text())
        if b.source == "captured"
    )
    assert bullet.sources == tuple(later)


def test_one_message_is_forgotten_by_its_id_alone_and_only_its_facts_go(
    settings: Settings, log: SessionLog
) -> None:
    first, second = said(
        settings, log, "chat-a", "My sister Iona lives in Bristol.", "I drive a blue Skoda."
    )
    done = forget_conversation(settings, log, message_id=first).answer
    assert (done["session"], done["messages"]) == ("chat-a", [first])
    assert list(captured_facts(settings).values()) == ["I drive a blue Skoda."]
    assert [m.id for m in log.messages("chat-a")] == [second]
    assert forget_conversation(settings, log, message_id=first).answer["already_forgotten"]


@pytest.mark.parametrize("bad", [0, -1, 2**63, 99999999999999999999999])
def test_a_message_id_outside_the_log_integer_is_refused_naming_the_rule(
    settings: Settings, log: SessionLog, bad: int
) -> None:
    with pytest.raises(InvalidInputError, match="1 ≤ id < 2\\^63"):
        forget_conversation(settings, log, message_id=bad)


def test_an_unknown_session_or_message_is_not_found_and_a_repeat_is_already_forgotten(
    settings: Settings, log: SessionLog
) -> None:
    with pytest.raises(NotFoundError):
        forget_conversation(settings, log, "never-logged")
    with pytest.raises(NotFoundError):
        forget_conversation(settings, log, message_id=12345)
    said(settings, log, "chat-a", "I live in Leith.")
    forget_conversation(settings, log, "chat-a")
    again = forget_conversation(settings, log, "chat-a").answer
    assert again["already_forgotten"] == time.strftime("%Y-%m-%d", time.gmtime())


def test_forgetting_a_captured_fact_cuts_its_words_out_of_the_message_that_said_them(
    settings: Settings, log: SessionLog
) -> None:
    (message,) = said(
        settings, log, "chat-a", "I had my appendix out in May. Also, I moved to Leith."
    )
    fact = next(i for i, t in captured_facts(settings).items() if "appendix" in t)
    forget(settings, log, fact)
    (kept,) = log.messages("chat-a")
    assert kept.id == message and "appendix" not in kept.text and "Leith" in kept.text
    assert all("appendix" not in e.text for e in episodes_of(log.messages("chat-a")))
    assert log.search(["appendix"]) == []
    assert holding(settings.workspace.memory_dir, "appendix") == []
    log.compact()  # the database's freed pages and write-ahead log (what a purge does)
    assert holding(settings.workspace.root, "appendix") == []
    grave = read_tombstones(settings.workspace)
    assert any(r["kind"] == "redaction" and r["id"] == message for r in grave.rows)


def test_a_line_promoted_only_from_forgotten_sessions_leaves_the_trusted_profile(
    settings: Settings, log: SessionLog
) -> None:
    for session in ("s1", "s2", "s3"):
        said(settings, log, session, "I prefer dark mode.")
    user = profile_path(settings.workspace, "USER.md")
    assert "- Prefer dark mode." in user.read_text()
    forget_conversation(settings, log, "s1")
    assert "- Prefer dark mode." not in user.read_text()  # two sessions are not enough
    assert PromotionStore.load(settings.workspace).active() == []


def test_a_promoted_line_with_evidence_left_keeps_only_that_evidence(
    settings: Settings, log: SessionLog
) -> None:
    for session in ("s1", "s2", "s3", "s4"):
        said(settings, log, session, "I prefer dark mode.")
    forget_conversation(settings, log, "s2")
    (record,) = PromotionStore.load(settings.workspace).active()
    assert "s2" not in record.evidence_sessions and len(record.evidence_sessions) >= 3
    assert "- Prefer dark mode." in profile_path(settings.workspace, "USER.md").read_text()


def test_curation_candidates_lose_forgotten_evidence_and_go_with_none_left(
    settings: Settings, log: SessionLog
) -> None:
    ids = said(settings, log, "chat-a", "I use Emacs.", "I am vegetarian.")
    store = CurationStore.load(settings.workspace)
    user = profile_path(settings.workspace, "USER.md")
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("# User preferences\n\n- User is vegetarian.\n")

    def candidate(cid: str, text: str, evidence: list[int], status: str) -> Candidate:
        ev = [{"message_id": m, "span": "x"} for m in evidence]
        fact = {"text": text, "evidence": ev, "target": "user"}
        op = Operation("USER.md", f"- {text}") if status == "applied" else None
        return Candidate(cid, "r-1", fact, "auto-apply", "ok", status, op, 0.0)

    store.candidates = [
        candidate("c-aaaaaaaaaa", "User uses Emacs.", [ids[0]], "pending"),
        candidate("c-bbbbbbbbbb", "User is vegetarian.", [ids[1]], "applied"),
        candidate("c-cccccccccc", "User uses Emacs daily.", ids, "pending"),
    ]
    store.flush()
    forget_conversation(settings, log, message_id=ids[1])
    forget_conversation(settings, log, message_id=ids[0])
    assert [c.id for c in CurationStore.load(settings.workspace).candidates] == []
    assert "vegetarian" not in user.read_text()
    assert holding(settings.workspace.root / "memory", "Emacs") == []


@pytest.mark.parametrize("what", [str(2**63), str(2**63 + 12345), "9" * 19])
def test_a_message_id_past_the_databases_integers_names_nothing(
    settings: Settings, log: SessionLog, what: str
) -> None:
    from substrate.forgetting.report import lineage

    with pytest.raises(NotFoundError, match="no logged message"):
        lineage(settings, log, what)
