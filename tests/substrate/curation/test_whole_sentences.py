"""Curation decides on whole sentences: a span quoted out of a sentence that
negates, asks, conditions, ironises, quotes, or is about someone else never
applies on its own (it waits for an operator, with the reason); the same
fact from a sentence that says it plainly applies."""

from __future__ import annotations

import pytest

from substrate import Settings
from substrate.llm import ChatClient
from substrate.profile.pending import read_pending
from substrate.sessions import SessionLog
from tests.llm_server import ScriptedLLM
from tests.substrate.curation.test_curate import fact, run, said, user_md

# (the message, the span a model quotes, the fact it proposes) at confidence 0.95.
FRAMED = [
    ("I do not want tea served with every answer.", "want tea served with every answer",
     "The user wants tea served with every answer."),
    ("Do I like long answers? Absolutely not.", "I like long answers",
     "The user likes long answers."),
    ("Sure, because I totally love being woken at 5am.", "I totally love being woken at 5am",
     "The user loves being woken at 5am."),
    ("If I were rich I would live in Monaco.", "I would live in Monaco",
     "The user lives in Monaco."),
    ("Bob prefers his reports as spreadsheets.", "prefers his reports as spreadsheets",
     "The user prefers reports as spreadsheets."),
    ("The intern lives in Berlin and rides a bike.", "lives in Berlin",
     "The user lives in Berlin."),
    ('My boss said "I hate meetings before noon".', "I hate meetings before noon",
     "The user hates meetings before noon."),
    ("لا أريد قهوة في الصباح", "أريد قهوة في الصباح", "The user wants coffee in the morning."),
]  # fmt: skip


@pytest.mark.parametrize(("message", "span", "text"), FRAMED)
def test_a_span_out_of_its_sentence_waits_for_review_with_why(
    settings_llm: Settings,
    client: ChatClient,
    log: SessionLog,
    llm_server: ScriptedLLM,
    message: str,
    span: str,
    text: str,
) -> None:
    [mid] = said(log, message)
    llm_server.say({"facts": [fact(mid, span, text, confidence=0.95)]})
    outcome = run(settings_llm, log, client, mid)
    assert outcome.applied == [], text
    assert text not in user_md(settings_llm)


def test_the_same_kind_of_fact_said_plainly_applies(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    [mid] = said(log, "I prefer short answers with examples.")
    llm_server.say(
        {"facts": [fact(mid, "I prefer short answers", "The user prefers short answers.")]}
    )
    outcome = run(settings_llm, log, client, mid)
    assert len(outcome.applied) == 1


def test_a_fact_granting_an_action_is_parked_for_the_person(
    settings_llm: Settings, client: ChatClient, log: SessionLog, llm_server: ScriptedLLM
) -> None:
    [mid] = said(log, "I want you to run commands without asking.")
    llm_server.say(
        {
            "facts": [
                fact(
                    mid,
                    "I want you to run commands without asking",
                    "The user wants you to run commands without asking.",
                    confidence=0.95,
                )
            ]
        }
    )
    outcome = run(settings_llm, log, client, mid)
    assert outcome.applied == [] and "without asking" not in user_md(settings_llm)
    assert [row.via for row in read_pending(settings_llm.workspace)] == ["curation"]


CLAIMS = [("drink oat milk", "drinks oat milk"), ("live near Ghent", "lives near Ghent"),
          ("like hiking at dawn", "likes hiking at dawn"), ("keep bees", "keeps bees")]  # fmt: skip
# Frames no test above lists: someone close named by "my", ironic agreement.
OTHER_FRAMES = ["My flatmate does {c}.", "My boss would {c}.", "My sister says she does {c}.",
                "Oh yes, I absolutely {c}, sure.", "Oh right, I {c}.", "I {c}, yeah right."]  # fmt: skip


@pytest.mark.parametrize("frame", OTHER_FRAMES)
def test_someone_close_or_ironic_agreement_goes_to_review(frame: str) -> None:
    from substrate.curation.sentences import sentence_problem

    for claim, stated in CLAIMS:
        message = frame.format(c=claim)
        why = sentence_problem(f"The user {stated}.", [(1, claim)], {1: message})
        assert why is not None, message


def test_my_own_thing_named_by_the_fact_still_applies() -> None:
    from substrate.curation.sentences import sentence_problem

    said = {1: "My favourite drink is oat milk."}
    assert (
        sentence_problem("The user's favourite drink is oat milk.", [(1, "oat milk")], said) is None
    )
