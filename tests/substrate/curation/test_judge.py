"""The durability judge: its shipped weights over the real sentence embedder,
wired into capture, and a damaged install reported by name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from substrate import Settings
from substrate.curation import capture_offline
from substrate.curation.judge import DurabilityJudge
from substrate.curation.statements import durable_statements
from substrate.errors import InvalidInputError
from substrate.intake import read_buffer
from substrate.sessions import NewMessage, open_session_log

ERRAND = "I went to the store again and had issues with the self-checkout."
FACT = "I moved to Manchester last June."


@pytest.fixture(scope="module")
def embed() -> object:
    from substrate.index.use_embedder import shared_use

    return shared_use().embed_query


@pytest.mark.slow
def test_the_shipped_judge_keeps_facts_and_drops_what_the_rules_let_through(
    embed: object,
) -> None:
    judge = DurabilityJudge(embed)  # type: ignore[arg-type]
    assert judge(FACT)
    assert judge("I adopted a beagle called Miso from the shelter.")
    assert not judge(ERRAND)
    assert not judge("I'm still a bit concerned about the cost of the marketing program.")


@pytest.mark.slow
def test_capture_asks_the_judge_when_the_process_has_an_embedder(
    settings: Settings, embed: object
) -> None:
    log = open_session_log(settings.workspace)
    for name in ("judged", "plain"):
        log.append(name, [NewMessage("user", f"{FACT} {ERRAND}", True)], 1_699_999_980.0)
    capture_offline(replace(settings, embed=embed), log, "judged", 0.0)
    assert [e.text for e in read_buffer(settings)] == [FACT]
    capture_offline(replace(settings, embed=None), log, "plain", 0.0)  # the rules alone
    assert [e.text for e in read_buffer(settings)] == [FACT, ERRAND]
    log.close()


def test_damaged_weights_are_reported_by_file(tmp_path: Path) -> None:
    missing = DurabilityJudge(lambda text: [0.0], tmp_path / "gone.json")
    with pytest.raises(InvalidInputError, match=r"cannot be loaded: .*gone\.json is missing"):
        missing(FACT)
    broken = tmp_path / "durable.json"
    broken.write_text('{"format": 1, "embedder": "x"')
    judge = DurabilityJudge(lambda text: [0.0], broken)
    with pytest.raises(InvalidInputError, match="durability judge cannot be loaded"):
        judge(FACT)
    broken.write_text('{"format": 1, "embedder": "x", "bias": 0}')
    with pytest.raises(InvalidInputError, match=r"durable\.json"):
        judge(FACT)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("turn", "kept"),
    [
        ("Remember I'm allergic to penicillin.", "I'm allergic to penicillin."),
        ("Please remember that my flat number is 4B.", "My flat number is 4B."),
        ("I've switched to oat milk in my coffee.", "I've switched to oat milk in my coffee."),
        ("Iona's birthday is on 12 January.", "Iona's birthday is on 12 January."),
        (
            "Karim lives in Leith now with his partner.",
            "Karim lives in Leith now with his partner.",
        ),
        ("My passport expires on 3 May 2031.", "My passport expires on 3 May 2031."),
    ],
)
def test_capture_hears_plain_statements_with_the_judge_on(
    embed: object, turn: str, kept: str
) -> None:
    """What the person asks to be kept, a change, a fact about someone they name:
    captured as said, whatever the judge makes of the wording."""
    judge = DurabilityJudge(embed)  # type: ignore[arg-type]
    assert [s.text for s in durable_statements(turn, judge)] == [kept]


@pytest.mark.slow
@pytest.mark.parametrize(
    "turn",
    [
        "Remember to buy milk?",
        "Remember when we talked about Rome?",
        "Iona's birthday is coming up, any gift ideas?",
        "Karim lives in Leith, can you suggest a restaurant there?",
    ],
)
def test_questions_and_requests_stay_uncaptured(embed: object, turn: str) -> None:
    judge = DurabilityJudge(embed)  # type: ignore[arg-type]
    assert durable_statements(turn, judge) == []
