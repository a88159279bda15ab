"""Candidate statements from a user's direct input.

Only the text the user typed feeds promotion (never resumed or expanded text,
assistant, tool or child-session text, nor our own blocks pasted back): this
module takes that text and returns at most `MAX_CANDIDATES` short statements a
detector may read. What it refuses, and why, is reported so `memory
promotions explain` can show it. Every pattern here is linear in the text
(RE2, or passes over it), so a megabyte of newlines costs what it weighs."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from substrate.safety import IGNORECASE, MULTILINE, linear, strip_echoes, strip_hidden_reasoning

MAX_CANDIDATES = 8
MAX_STATEMENT_CHARS = 120
MAX_STATEMENT_WORDS = 16

_FENCES = ("```", "~~~")
_BREAK = linear(r"\n+|[.!?؟;؛]\s+")
_QUOTED = linear(
    r"`[^`]*`|\"[^\"]*\"|“[^”]*”|‘[^’]*’|«[^»]*»|„[^“”]*[“”]|(?:^|\s)'[^']+'(?:\s|$|[.,!?])"
)
# Text that is someone else's words handed through the user: a delegated task,
# a pasted transcript, a resume or "summarize this" wrapper.
_SCAFFOLD = linear(
    r"^\s*(?:assistant|system|tool|user|human|ai)\s*:"
    r"|^\s*>"
    r"|\b(?:summari[sz]e|tl;?dr|translate|rewrite|paraphrase)\b[^.?!\n]{0,40}"
    r"\b(?:this|these|the following|below|above)\b"
    r"|\b(?:resum(?:e|ing)|continu(?:e|ing)) (?:from )?(?:the |our |my )?(?:previous|last|earlier)"
    r" (?:session|conversation|task)\b"
    r"|\b(?:subagent|sub-agent|delegated task|you are (?:an? )?(?:assistant|agent))\b"
    r"|\bthe (?:assistant|agent|tool|model) (?:said|wrote|replied|answered|returned)\b"
    r"|^\s*\[(?:assistant|tool|system|resume|resumed|summary)\b"
    r"|لخص|لخّص|ترجم",
    IGNORECASE | MULTILINE,
)


@dataclass(frozen=True)
class Candidate:
    text: str
    index: int  # its position among the input's statements
    source: str = "direct-user-input"


@dataclass(frozen=True)
class Refusal:
    text: str
    reason: str


@dataclass(frozen=True)
class Extraction:
    candidates: list[Candidate]
    refused: list[Refusal]


def extract_candidates(text: str) -> Extraction:
    """The statements of `text` a detector may read, and those refused (why)."""
    cleaned = _without_fences(strip_echoes(strip_hidden_reasoning(text)))
    refused: list[Refusal] = []
    if _SCAFFOLD.search(cleaned):
        return Extraction([], [Refusal(_clip(cleaned), "scaffolding: not the user's own words")])
    candidates: list[Candidate] = []
    for i, part in enumerate(p.strip() for p in _statements(cleaned)):
        if not part:
            continue
        reason = _refusal(part)
        if reason is not None:
            refused.append(Refusal(_clip(part), reason))
        elif len(candidates) < MAX_CANDIDATES:
            candidates.append(Candidate(part, i))
        else:
            refused.append(Refusal(_clip(part), f"more than {MAX_CANDIDATES} candidates"))
    return Extraction(candidates, refused)


def _refusal(statement: str) -> str | None:
    if any(unicodedata.category(c) in ("Cf", "Cc", "Co") for c in statement):
        return "invisible or bidirectional control characters"
    if _QUOTED.search(statement):
        return "quoted or backticked text: someone else's words"
    if len(statement) > MAX_STATEMENT_CHARS or len(statement.split()) > MAX_STATEMENT_WORDS:
        return "a long incidental statement, not a stated preference"
    return None


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _without_fences(text: str) -> str:
    """`text` with each fenced span (```...``` or ~~~...~~~, to the end when
    unclosed) replaced by a line break. Linear: each fence kind's next position
    is remembered and searched again only once the cursor has passed it (a
    fresh search for the absent kind on every step made 640 KB take 33 s)."""
    out: list[str] = []
    at = 0
    upcoming = {f: text.find(f) for f in _FENCES}
    while True:
        for fence, found in upcoming.items():
            if 0 <= found < at:
                upcoming[fence] = text.find(fence, at)
        starts = [(i, f) for f, i in upcoming.items() if i >= 0]
        if not starts:
            out.append(text[at:])
            return "".join(out)
        start, fence = min(starts)
        out.append(text[at:start] + "\n")
        end = text.find(fence, start + len(fence))
        if end < 0:
            return "".join(out)
        at = end + len(fence)


def _statements(text: str) -> list[str]:
    """`text` cut at line breaks and after each sentence end (the mark stays)."""
    out: list[str] = []
    start = 0
    for match in _BREAK.finditer(text):
        stop = match.start() if text[match.start()] == "\n" else match.start() + 1
        out.append(text[start:stop])
        start = match.end()
    out.append(text[start:])
    return out
