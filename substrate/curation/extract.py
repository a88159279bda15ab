"""Extraction: a model reads a bounded slice of the log and proposes facts.

The model only proposes. Each fact must quote its evidence: spans that occur
verbatim in the messages it cites, which must be in the slice, and never in
text our own blocks put there (a `<memory>` card, the profile or recall block
echoed back by a host). A fact that fails is dropped and counted, with why;
what is written is decided by the reviewer, in code."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from substrate.llm import ChatClient, LlmAnswerError, Usage
from substrate.sessions import LoggedMessage

SLICE_MESSAGES = 40
SLICE_CHARS = 12_000
MAX_FACTS = 20
# Our own blocks, as a host may echo them back inside a message.
OWN_BLOCKS = re.compile(r"<(memory|profile|recall|info)\b[^>]*>.*?(?:</\1>|\Z)", re.I | re.S)

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
    """Bounded slices in order: at most `SLICE_MESSAGES` messages and about
    `SLICE_CHARS` characters each (a longer message is one slice of its own)."""
    out: list[list[LoggedMessage]] = []
    current: list[LoggedMessage] = []
    size = 0
    for message in messages:
        if current and (len(current) >= SLICE_MESSAGES or size + len(message.text) > SLICE_CHARS):
            out.append(current)
            current, size = [], 0
        current.append(message)
        size += len(message.text)
    if current:
        out.append(current)
    return out


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
    for e in fact.evidence:
        message = by_id.get(e.message_id)
        if message is None:
            return f"cites message {e.message_id}, which is not in the slice"
        if message.role not in ("user", "assistant"):
            return f"cites a {message.role} message"
        if e.span not in message.text:
            return f"span not found verbatim in message {e.message_id}"
        if e.span not in OWN_BLOCKS.sub("\0", message.text):
            return f"span comes from our own memory blocks in message {e.message_id}"
    if all(by_id[e.message_id].role == "assistant" for e in fact.evidence):
        return "only the assistant said it"
    return None
