"""Parsing `--batch` lines: plain text, or a JSON object naming its fields."""

from __future__ import annotations

import json

from substrate import MemoryServiceError


def batch_message(line: str) -> tuple[str, str | None]:
    """A plain line is its own fresh conversation; JSON may name one."""
    line = line.strip()
    if not line.startswith("{"):
        return line, None
    try:
        doc = json.loads(line)
    except ValueError:
        raise MemoryServiceError(f"--batch: not valid JSON: {line[:80]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("message"), str):
        raise MemoryServiceError('--batch: a JSON line needs a string "message"')
    conv = doc.get("conversation_id")
    if conv is not None and not isinstance(conv, str):
        raise MemoryServiceError("--batch: conversation_id must be a string")
    return doc["message"], conv


def batch_query(line: str, default_k: int) -> tuple[str, int]:
    line = line.strip()
    if line.startswith("{"):
        try:
            doc = json.loads(line)
        except ValueError:
            raise MemoryServiceError(f"--batch: not valid JSON: {line[:80]}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("query"), str):
            raise MemoryServiceError('--batch: a JSON line needs a string "query"')
        k = doc.get("k", default_k)
        if not isinstance(k, int) or k < 1:
            raise MemoryServiceError(f"--batch: k must be a positive integer, got {k!r}")
        return doc["query"], k
    return line, default_k
