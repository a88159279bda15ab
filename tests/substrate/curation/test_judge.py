"""The durability judge: its shipped weights over the real sentence embedder,
wired into capture, and a damaged install reported by name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from substrate import Settings
from substrate.curation import capture_offline
from substrate.curation.judge import DurabilityJudge
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
