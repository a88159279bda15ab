"""Capture beyond `remember`: what a conversation said that nobody saved.

The retrospective (every `retrospective_hours`) and the sweep (`sweep_enabled`,
once a conversation has been quiet for `sweep_idle_minutes`) both read the
messages capture has not read yet, through the model's extractor (evidence
checked, our own echoed blocks never evidence), and `remember` each
non-sensitive fact under the strict `captured` scanner policy; consolidation
files them later. A session's capture cursor advances only past slices that
finished. Without a model, `capture_offline` reads the person's own turns
with the offline extractor (`statements`): a session's finalization and the
sweep run it, so a conversation teaches even in the embedded default. Each
captured fact is stamped with its message's time and names the messages it was drawn from
(its lineage: forgetting them forgets it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from substrate.config.settings import Settings
from substrate.curation.extract import extract, slices
from substrate.curation.judge import DurabilityJudge
from substrate.curation.statements import Judge, durable_statements, read_turn
from substrate.errors import BillingError, InvalidInputError, LlmAnswerError, TransientError
from substrate.intake import read_buffer, remember
from substrate.llm import ChatClient
from substrate.meaning.voices import own_words
from substrate.sessions import LoggedMessage, SessionLog


def capture_session(
    settings: Settings, log: SessionLog, client: ChatClient, session_id: str, now: float
) -> dict[str, Any]:
    """Remember what this session's unread messages state; counts, no text."""
    cursor = log.capture_cursor(session_id)
    messages = [_own(m) for m in log.messages(session_id) if m.id > cursor]
    known = {e.text for e in read_buffer(settings)}
    saved = skipped = dropped = 0
    stamp = datetime.fromtimestamp(now, UTC)
    for slice_ in slices(messages):
        extraction = extract(client, slice_)
        dropped += len(extraction.dropped)
        for fact in extraction.facts:
            if fact.sensitive or fact.text in known:
                skipped += 1
                continue
            sources = tuple(message_id for message_id, _ in fact.evidence)
            try:
                remember(settings, fact.text, now=stamp, source="captured", sources=sources)
            except InvalidInputError:
                skipped += 1  # the scanner or a limit refused it
                continue
            known.add(fact.text)
            saved += 1
        log.set_capture_cursor(session_id, slice_[-1].id, now)
    if messages:  # every slice finished: tool messages after the last one are read too
        log.set_capture_cursor(session_id, messages[-1].id, now)
    return {"session": session_id, "saved": saved, "skipped": skipped, "dropped": dropped}


MODEL_DOWN = (TransientError, BillingError, LlmAnswerError)


def capture_any(
    settings: Settings,
    log: SessionLog,
    client: ChatClient | None,
    session_id: str,
    now: float,
    upto: int | None = None,
) -> dict[str, Any]:
    """The model's extractor when a model is configured and answers, else the
    offline one: a model that is down (unreachable, rate- or billing-limited past
    its retries, answering nonsense) never leaves a conversation uncaptured. What
    the model read before it failed keeps its cursor; the rest is read offline."""
    if client is None:
        return capture_offline(settings, log, session_id, now, upto)
    try:
        return capture_session(settings, log, client, session_id, now)
    except MODEL_DOWN as exc:
        done = capture_offline(settings, log, session_id, now, upto)
        return {**done, "fallback": f"{type(exc).__name__}: {exc}"[:300]}


def capture_offline(
    settings: Settings, log: SessionLog, session_id: str, now: float, upto: int | None = None
) -> dict[str, Any]:
    """Remember the durable statements of this session's unread user turns (up to
    message `upto`); counts, no text. Never the assistant's turns, nor a tool's,
    nor text a host forwarded (only direct user input)."""
    cursor = log.capture_cursor(session_id)
    messages = [
        m for m in log.messages(session_id) if m.id > cursor and (upto is None or m.id <= upto)
    ]
    known = {e.text for e in read_buffer(settings)}
    facts: dict[str, int] = {}
    skipped = 0
    judge = durability_judge(settings)
    for message in messages:
        if message.role != "user" or not message.direct:
            continue
        stamp = datetime.fromtimestamp(message.at, UTC)
        for statement in durable_statements(message.text, judge):
            if statement.text in known:
                skipped += 1
                continue
            try:
                entry = remember(
                    settings, statement.text, now=stamp, source="captured", sources=(message.id,)
                )
            except InvalidInputError:
                skipped += 1
                continue
            known.add(statement.text)
            facts[entry.id] = message.id
    if messages:
        log.set_capture_cursor(session_id, messages[-1].id, now, facts)
    return {"session": session_id, "saved": len(facts), "skipped": skipped, "extractor": "offline"}


def _own(message: LoggedMessage) -> LoggedMessage:
    """A user turn as the model's extractor reads it: the person's own words only
    (what they quote, forward, paste or give to transform is not their fact)."""
    if message.role != "user":
        return message
    own = "\n".join(span.text.strip() for span in own_words(message.text))
    return message if own == message.text else replace(message, text=own)


def explain_capture(settings: Settings, log: SessionLog, session_id: str) -> list[dict[str, Any]]:
    """Every turn of the session, each with its id (what `memory forget
    --message` takes), and for the person's turns what the offline extractor
    captures from it, what it skips and why (`memory sessions explain`). A turn
    the host only forwarded (not direct) is never read, nor the assistant's,
    a tool's or the system's."""
    judge = durability_judge(settings)
    turns = []
    for message in log.messages(session_id):
        row: dict[str, Any] = {
            "message": message.id,
            "role": message.role,
            "at": message.at,
            "direct": message.direct,
        }
        if message.role != "user":
            row |= {"captured": [], "skipped": [], "not_read": f"the {message.role}'s turn"}
        elif not message.direct:
            row |= {"captured": [], "skipped": [{"text": message.text, "why": "not direct"}]}
        else:
            readings = read_turn(message.text, judge)
            row["captured"] = [r.statement.text for r in readings if r.statement is not None]
            row["skipped"] = [{"text": r.text, "why": r.why} for r in readings if r.why]
        turns.append(row)
    return turns


def durability_judge(settings: Settings) -> Judge | None:
    """The learned judge over the rules' proposals, when the composition root
    gave the process's sentence embedder (the rules alone otherwise)."""
    return None if settings.embed is None else _judge_over(settings.embed)


@lru_cache(maxsize=4)
def _judge_over(embed: Callable[[str], Any]) -> DurabilityJudge:
    """One judge per embedder: its weights are read once per process, not once
    per captured session (an import captures thousands)."""
    return DurabilityJudge(embed)


def capture(
    settings: Settings,
    log: SessionLog,
    client: ChatClient | None,
    trigger: str,
    clock: float | None = None,
) -> list[dict[str, Any]]:
    """`sweep`: quiet sessions only; `retrospective`: every session with unread
    messages."""
    now = time.time() if clock is None else clock
    quiet = now - settings.tuning.sweep_idle_minutes * 60 if trigger == "sweep" else None
    sessions = log.uncaptured(quiet_since=quiet)
    return [capture_any(settings, log, client, session, now) for session in sessions]
