"""Splitting a page into chunks that fit the embedding model.

A chunk is the page title, a blank line, then consecutive lines of the body.
Lines are packed greedily up to the token budget; a heading always starts a
new chunk (so a chunk is about one section); a single line longer than the
budget is split at sentence ends, then between words. Tokens are counted with
the model's own tokenizer, so a chunk is never silently truncated by the
model and a sentence at the end of a long page is still embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from substrate.safety.patterns import linear, runs

TokenCounter = Callable[[list[str]], list[int]]

_HEADING = runs(r"#{1,6}\s")
_SENTENCE_END = linear(r"[.!?؟。]\s+")


@dataclass(frozen=True)
class Chunk:
    """`history`: every fact in it is no longer current (searched, but ranked
    below the chunks that hold what is true now)."""

    index: int
    text: str
    history: bool = False


def chunk_page(title: str, body: str, count_tokens: TokenCounter, budget: int) -> list[Chunk]:
    """Chunks of `body`, each with `title` prefixed, each at most `budget` tokens."""
    prefix = f"{title}\n\n"
    room = max(16, budget - count_tokens([prefix])[0])
    lines = [line for line in body.split("\n") if line.strip()]
    if lines and lines[0].lstrip("# ").strip() == title.strip():
        lines = lines[1:]  # the title heading is already the prefix
    pieces = _fit_lines(lines, count_tokens, room)
    bodies = _pack(pieces, room)
    return [Chunk(i, prefix + text) for i, text in enumerate(bodies or [""])]


def chunk_facts(
    title: str,
    facts: list[str],
    per_chunk: int,
    count_tokens: TokenCounter,
    budget: int,
    start: int = 0,
    current: list[bool] | None = None,
) -> list[Chunk]:
    """Fact bullets `per_chunk` at a time (fewer when that would pass the token
    budget), each chunk with the title prefixed, numbered from `start`. A page of
    filed facts is many small subjects: a chunk of a few of them matches the one
    a question is about far better than a chunk of a dozen, and its excerpt is
    that fact rather than whatever shares the chunk's words. A fact shown with
    the facts it replaced counts each of them, so a value's history does not
    crowd other subjects into its chunk. `current` says which facts are still
    true; a chunk of none of them is a `history` chunk."""
    prefix = f"{title}\n\n"
    room = max(16, budget - count_tokens([prefix])[0])
    flags = current if current is not None else [True] * len(facts)
    groups: list[tuple[list[tuple[str, int, bool]], bool]] = []
    used = 0
    for fact, now in zip(facts, flags, strict=True):
        for piece in _fit_lines([fact], count_tokens, room):
            weight = max(1, piece[0].count("- ["))
            if not groups or (groups[-1][0] and used + weight > per_chunk):
                groups.append(([], False))
                used = 0
            pieces, any_now = groups[-1]
            pieces.append(piece)
            groups[-1] = (pieces, any_now or now)
            used += weight
    out: list[Chunk] = []
    for pieces, any_now in groups:
        for text in _pack(pieces, room):
            out.append(Chunk(start + len(out), prefix + text, history=not any_now))
    return out


def page_text(title: str, chunks: list[Chunk]) -> str:
    """The page again from its chunks: the title once, then every chunk's lines."""
    prefix = f"{title}\n\n"
    return prefix + "\n".join(chunk.text.removeprefix(prefix) for chunk in chunks)


def _fit_lines(
    lines: list[str], count_tokens: TokenCounter, room: int
) -> list[tuple[str, int, bool]]:
    """(text, tokens, starts_section) pieces, each within `room` tokens."""
    out: list[tuple[str, int, bool]] = []
    for line, tokens in zip(lines, count_tokens(lines) if lines else [], strict=True):
        heading = bool(_HEADING.match(line))
        if tokens <= room:
            out.append((line, tokens, heading))
            continue
        parts = _split_long(line, count_tokens, room)
        out.extend((text, n, heading and i == 0) for i, (text, n) in enumerate(parts))
    return out


def _split_long(line: str, count_tokens: TokenCounter, room: int) -> list[tuple[str, int]]:
    sentences = _sentences(line)
    out: list[tuple[str, int]] = []
    for sentence, tokens in zip(sentences, count_tokens(sentences), strict=True):
        if tokens <= room:
            out.append((sentence, tokens))
        else:
            out.extend(_split_words(sentence, count_tokens, room))
    return out


def _split_words(sentence: str, count_tokens: TokenCounter, room: int) -> list[tuple[str, int]]:
    words = sentence.split()
    counts = count_tokens(words)
    out: list[tuple[str, int]] = []
    current: list[str] = []
    used = 0
    for word, tokens in zip(words, counts, strict=True):
        if current and used + tokens > room:
            out.append((" ".join(current), used))
            current, used = [], 0
        current.append(word)
        used += tokens
    if current:
        out.append((" ".join(current), used))
    return out


def _pack(pieces: list[tuple[str, int, bool]], room: int) -> list[str]:
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for text, tokens, starts_section in pieces:
        # +1: the newline joining lines costs about a token.
        if current and (starts_section or used + tokens + 1 > room):
            chunks.append("\n".join(current))
            current, used = [], 0
        current.append(text)
        used += tokens + 1
    if current:
        chunks.append("\n".join(current))
    return chunks


def _sentences(line: str) -> list[str]:
    """`line` cut after each sentence end (the mark stays with its sentence, the
    spaces after it go)."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(line):
        out.append(line[start : match.start() + 1])
        start = match.end()
    out.append(line[start:])
    return [s for s in out if s]
