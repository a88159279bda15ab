"""Candidate extraction: what reaches a detector from a user's direct input."""

from __future__ import annotations

import pytest

from substrate.promotion import MAX_CANDIDATES, extract_candidates
from substrate.safety.echoes import has_echo


def texts(text: str) -> list[str]:
    return [c.text for c in extract_candidates(text).candidates]


def test_splits_on_newlines_and_sentence_punctuation() -> None:
    assert texts("I prefer TypeScript. Default to pnpm!\nKeep replies concise؟ ok") == [
        "I prefer TypeScript.",
        "Default to pnpm!",
        "Keep replies concise؟",
        "ok",
    ]


def test_a_path_with_dots_is_not_split() -> None:
    assert texts("أفضل ~/.estacoda/foo") == ["أفضل ~/.estacoda/foo"]


def test_at_most_eight_candidates() -> None:
    result = extract_candidates("\n".join(f"Statement {i}." for i in range(12)))
    assert len(result.candidates) == MAX_CANDIDATES
    assert len(result.refused) == 12 - MAX_CANDIDATES


def test_hidden_reasoning_is_stripped() -> None:
    assert texts("<think>I prefer Go</think>I prefer Rust") == ["I prefer Rust"]


def test_fenced_code_is_removed() -> None:
    assert texts("see:\n```\nI prefer Go\n```\nthanks") == ["see:", "thanks"]


@pytest.mark.parametrize(
    "statement",
    [
        'He said "I prefer Go"',
        "I prefer `Go`",
        "She wrote “I prefer Go”",
        "Il a dit «I prefer Go»",
        "the line 'I prefer Go' is from a test",
        "He wrote ‘I prefer Go’",
    ],
)
def test_quoted_spans_are_refused(statement: str) -> None:
    result = extract_candidates(statement)
    assert result.candidates == [] and "quoted" in result.refused[0].reason


@pytest.mark.parametrize(
    "text",
    [
        "assistant: I prefer Go",
        "Tool: I prefer Go",
        "> I prefer Go",
        "Summarize this: I prefer Go",
        "Please rewrite the following. I prefer Go.",
        "Resume from the previous session. I prefer Go.",
        "You are a subagent. I prefer Go.",
        "The assistant said I prefer Go",
        "[resume] I prefer Go",
        "لخص هذا: أفضل Go",
    ],
)
def test_scaffolding_is_refused(text: str) -> None:
    result = extract_candidates(text)
    assert result.candidates == []
    if has_echo(text):  # another role's transcript line: cut before the extractor reads it
        assert result.refused == []
    else:
        assert "scaffolding" in result.refused[0].reason


def test_long_incidental_statements_are_refused() -> None:
    long = "I prefer TypeScript for the frontend work we do together on weekends " * 3
    result = extract_candidates(long)
    assert result.candidates == [] and "long" in result.refused[0].reason


@pytest.mark.parametrize("control", ["\u200f", "\u202e", "\u2066", "\u200b", "\u00ad"])
def test_invisible_and_bidi_controls_are_refused(control: str) -> None:
    result = extract_candidates(f"I prefer Type{control}Script")
    assert result.candidates == [] and "invisible" in result.refused[0].reason


def test_apostrophes_are_not_quotes() -> None:
    assert texts("I'd prefer TypeScript") == ["I'd prefer TypeScript"]
