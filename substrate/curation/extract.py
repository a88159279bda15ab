"""Extraction: a model reads a bounded slice of the log and proposes facts.

The model only proposes, and it reads only what the user and the assistant
said: tool and system messages (a web page, a command's output) never reach
it, and our own blocks echoed back in a message are cut out first
(`strip_echoes`). Each fact must quote its evidence, and evidence means
evidence: every span occurs verbatim in a *user* message of the slice,
outside our echoed blocks, and together the spans carry the fact's substance
(most of its content words), so a one-letter span cannot vouch for anything,
and mean what the fact says: polarity, subject and no fragments
(`curation.evidence`).
A fact that fails is dropped and counted, with why; what is written is
decided by the reviewer, in code."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from substrate.curation.evidence import meaning_problem, same_word
from substrate.llm import ChatClient, LlmAnswerError, Usage
from substrate.safety import runs, strip_echoes
from substrate.sessions import LoggedMessage

SLICE_MESSAGES = 40
SLICE_CHARS = 12_000
MAX_FACTS = 20
READ_ROLES = ("user", "assistant")  # what the model is shown of a conversation
# The share of a fact's content words its evidence spans must hold.
SUBSTANCE = 0.6
_WORD = runs(r"\w+")
# Words that say nothing about what a fact is (its subject is the user).
_FILLER = frozenset(
    """the and for with that this from into have has had was were are is be been being
    you your user users user's their they them his her she him it its our ours we i me my
    mine not but also very really just about than then when what which who will would can
    could should does did doing done like likes prefers prefer preferred wants want said
    says tells told mentioned stated currently usually always never may might must shall
    maybe perhaps probably
    المستخدم المستخدمة يريد تريد أريد يحب تحب أحب يفضل تفضل أفضل هو هي أن في من على إلى عن
    مع هذا هذه""".split()
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text", "evidence", "target", "confidence", "risk", "sensitive"],
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["message_id", "span"],
                            "properties": {
                                "message_id": {"type": "integer"},
                                "span": {"type": "string"},
                            },
                        },
                    },
                    "target": {"type": "string", "enum": ["user", "project"]},
                    "confidence": {"type": "number"},
                    "risk": {"type": "string", "enum": ["low", "medium", "high"]},
                    "sensitive": {"type": "boolean"},
                },
            },
        }
    },
}
SYSTEM = (
    "You read a slice of a conversation between a user and an assistant and list "
    "durable facts worth remembering about the user (preferences, standing "
    "instructions, personal facts) or about their project. Quote, for each fact, "
    "the exact words of the messages that state it. Never infer; never include "
    "anything the assistant said unless the user agreed to it. Mark sensitive facts "
    "(health, finances, credentials, other people's private details). Answer only "
    "with the JSON object the schema describes."
)


class EvidenceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_id: int
    span: str = Field(min_length=1)


class FactIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=500)
    evidence: list[EvidenceIn] = Field(min_length=1)
    target: Literal["user", "project"]
    confidence: float = Field(ge=0.0, le=1.0)
    risk: Literal["low", "medium", "high"]
    sensitive: bool


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: list[FactIn] = Field(max_length=MAX_FACTS)


@dataclass(frozen=True)
class Fact:
    text: str
    evidence: tuple[tuple[int, str], ...]
    target: str
    confidence: float
    risk: str
    sensitive: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "evidence": [{"message_id": m, "span": s} for m, s in self.evidence],
            "target": self.target,
            "confidence": self.confidence,
            "risk": self.risk,
            "sensitive": self.sensitive,
        }


@dataclass
class Extraction:
    facts: list[Fact] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # why each dropped fact went
    usage: Usage = field(default_factory=Usage)


def slices(messages: list[LoggedMessage]) -> list[list[LoggedMessage]]:
    """The readable messages (`readable`) in bounded slices, in order: at most
    `SLICE_MESSAGES` messages and about `SLICE_CHARS` characters each (a longer
    message is one slice of its own)."""
    out: list[list[LoggedMessage]] = []
    current: list[LoggedMessage] = []
    size = 0
    for message in readable(messages):
        if current and (len(current) >= SLICE_MESSAGES or size + len(message.text) > SLICE_CHARS):
            out.append(current)
            current, size = [], 0
        current.append(message)
        size += len(message.text)
    if current:
        out.append(current)
    return out


def readable(messages: list[LoggedMessage]) -> list[LoggedMessage]:
    """The messages a model may read: the user's and the assistant's turns, each
    without our own blocks a host echoed back into it."""
    return [
        LoggedMessage(m.id, m.session_id, m.role, strip_echoes(m.text), m.at, m.direct)
        for m in messages
        if m.role in READ_ROLES
    ]


def request(slice_: list[LoggedMessage]) -> list[dict[str, str]]:
    """The chat messages: the last user message ends with the slice as a JSON array."""
    rows = [{"id": m.id, "role": m.role, "text": m.text} for m in slice_]
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": "The conversation slice:\n" + json.dumps(rows, ensure_ascii=False),
        },
    ]


def extract(client: ChatClient, slice_: list[LoggedMessage]) -> Extraction:
    """Facts the model proposes for this slice, each with checked evidence.
    Raises `LlmAnswerError` when the answer is not the schema's object (the run
    keeps its cursor and is retried); transient and billing errors pass through."""
    answer = client.complete_json(request(slice_), SCHEMA, "curation_facts")
    try:
        parsed = AnswerIn.model_validate(answer.data)
    except ValidationError as exc:
        raise LlmAnswerError(f"schema violation: {exc.errors()[0]['msg']}") from None
    out = Extraction(usage=answer.usage)
    by_id = {m.id: m for m in slice_}
    for fact in parsed.facts:
        why = _evidence_problem(fact, by_id)
        if why is not None:
            out.dropped.append(f"{fact.text[:60]!r}: {why}")
            continue
        out.facts.append(
            Fact(
                " ".join(fact.text.split()),
                tuple((e.message_id, e.span) for e in fact.evidence),
                fact.target,
                fact.confidence,
                fact.risk,
                fact.sensitive,
            )
        )
    return out


def _evidence_problem(fact: FactIn, by_id: dict[int, LoggedMessage]) -> str | None:
    """Why `fact`'s evidence does not hold (None when it does). `by_id` holds the
    slice as the model read it (`readable`: our echoed blocks already cut out)."""
    for e in fact.evidence:
        message = by_id.get(e.message_id)
        if message is None:
            return f"cites message {e.message_id}, which is not in the slice"
        if message.role != "user":
            return f"cites a {message.role} message: evidence must be the user's own words"
        if e.span not in message.text:
            return f"span not found verbatim in message {e.message_id} (outside our own blocks)"
    spans = [e.span for e in fact.evidence]
    return substance_problem(fact.text, spans) or meaning_problem(
        fact.text, spans, content_words(fact.text)
    )


def substance_problem(fact: str, spans: list[str]) -> str | None:
    """Why the spans do not carry the fact (None when they do): most of its content
    words must be in them, a word counting when one starts the other's stem."""
    wanted = content_words(fact)
    if not wanted:
        return "the fact has no content words"
    said = content_words(" ".join(spans))
    held = [w for w in wanted if any(same_word(w, s) for s in said)]
    if len(held) < SUBSTANCE * len(wanted):
        return (
            f"the evidence does not carry the fact: {len(held)} of its {len(wanted)} "
            "content words are in the quoted spans"
        )
    return None


def content_words(text: str) -> list[str]:
    """The words of `text` that say what it is about, in order, each once."""
    words = (w.casefold() for w in _WORD.findall(text))
    return list(dict.fromkeys(w for w in words if len(w) >= 3 and w not in _FILLER))
