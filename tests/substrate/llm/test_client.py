"""The model client reads answers within bounds, and every way an answer can be
bad or late is one of the product's errors."""

from __future__ import annotations

import time

import pytest

from substrate import Workspace
from substrate.errors import BillingError, TransientError
from substrate.llm import ChatClient, LlmAnswerError, LlmSettings
from tests.llm_server import ScriptedLLM

SCHEMA = {"type": "object"}
ASK = [{"role": "user", "content": "hi"}]


@pytest.fixture
def client(llm_server: ScriptedLLM, workspace: Workspace) -> ChatClient:
    return ChatClient(
        LlmSettings(llm_server.url, "scripted", None, 2.0, 256, max_answer_bytes=64 * 1024)
    )


def test_a_good_answer_is_parsed_with_its_tokens(
    client: ChatClient, llm_server: ScriptedLLM
) -> None:
    llm_server.say({"facts": []}, prompt_tokens=7)
    answer = client.complete_json(ASK, SCHEMA, "t")
    assert answer.data == {"facts": []} and answer.usage.prompt_tokens == 7


def test_an_oversized_answer_is_refused_without_reading_it_all(
    client: ChatClient, llm_server: ScriptedLLM
) -> None:
    llm_server.huge(8 * 1024 * 1024)
    with pytest.raises(LlmAnswerError, match=r"declares .* over the limit of 65536"):
        client.complete_json(ASK, SCHEMA, "t")
    llm_server.huge(8 * 1024 * 1024, declare=False)  # no length said: counted as it comes
    with pytest.raises(LlmAnswerError, match="passed 65536 bytes"):
        client.complete_json(ASK, SCHEMA, "t")
    deadline = time.monotonic() + 5
    while llm_server.hung_up < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert llm_server.hung_up == 2  # neither answer was read to its end


def test_a_dripping_answer_stops_at_its_deadline(
    client: ChatClient, llm_server: ScriptedLLM
) -> None:
    llm_server.drip({"facts": ["x" * 400]}, 0.01)  # ~4 s in total, never idle for 2 s
    started = time.monotonic()
    with pytest.raises(TransientError, match="did not answer within"):
        client.complete_json(ASK, SCHEMA, "t")
    assert time.monotonic() - started < 3.5


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("[" * 5000 + "]" * 5000, "nests deeper"),
        ('{"confidence": NaN}', "not a JSON number"),
        ("[1, 2]", "not a JSON object"),
        ("not json at all", "not JSON"),
        ("", "empty"),
    ],
    ids=["nested", "nan", "list", "prose", "empty"],
)
def test_unusable_answers_are_answer_errors(
    client: ChatClient, llm_server: ScriptedLLM, content: str, why: str
) -> None:
    llm_server.say(content)
    with pytest.raises(LlmAnswerError, match=why):
        client.complete_json(ASK, SCHEMA, "t")


def test_provider_failures_are_transient_or_billing(
    client: ChatClient, llm_server: ScriptedLLM
) -> None:
    llm_server.fail(429, "slow down")
    with pytest.raises(TransientError, match="429"):
        client.complete_json(ASK, SCHEMA, "t")
    llm_server.fail(402, "insufficient_quota")
    with pytest.raises(BillingError):
        client.complete_json(ASK, SCHEMA, "t")
    llm_server.fail(500, "boom")
    with pytest.raises(TransientError, match="500"):
        client.complete_json(ASK, SCHEMA, "t")


def test_health_says_a_model_is_unreachable_until_it_answers_again(
    client: ChatClient, llm_server: ScriptedLLM
) -> None:
    assert client.health() == "not used yet"
    llm_server.fail(503, "down")
    with pytest.raises(TransientError):
        client.complete_json(ASK, SCHEMA, "t")
    assert client.health().startswith("unreachable:") and "503" in client.health()
    llm_server.say({"facts": []})
    client.complete_json(ASK, SCHEMA, "t")
    assert client.health() == "ok"
