"""`--batch` input: plain text or a JSON object per line, one answer per line.

Output matches input line for line: a line that cannot be answered (empty,
bad JSON, refused by the library) gets an error object in its place, and the
lines after it are still answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from service.cli.base import print_json_line
from substrate import InvalidInputError, MemoryServiceError


def answer_each(lines: Iterable[str], answer: Callable[[str], dict[str, Any]]) -> int:
    """Print one JSON line per input line, in order; returns how many failed."""
    failed = 0
    for number, line in enumerate(lines, 1):
        try:
            print_json_line(answer(line))
        except MemoryServiceError as exc:
            failed += 1
            print_json_line({"line": number, "error": {"code": exc.code, "message": exc.message}})
    return failed


def batch_message(line: str) -> tuple[str, str | None]:
    """A plain line is its own fresh conversation; JSON may name one."""
    line = line.strip()
    if not line:
        raise InvalidInputError("--batch: empty line (give a message per line)")
    if not line.startswith("{"):
        return line, None
    try:
        doc = json.loads(line)
    except ValueError:
        raise InvalidInputError(f"--batch: not valid JSON: {line[:80]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("message"), str):
        raise InvalidInputError('--batch: a JSON line needs a string "message"')
    conv = doc.get("conversation_id")
    if conv is not None and not isinstance(conv, str):
        raise InvalidInputError("--batch: conversation_id must be a string")
    return doc["message"], conv


MAX_K = 1000


def batch_query(line: str, default_k: int) -> tuple[str, int]:
    line = line.strip()
    if line.startswith("{"):
        try:
            doc = json.loads(line)
        except ValueError:
            raise InvalidInputError(f"--batch: not valid JSON: {line[:80]}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("query"), str):
            raise InvalidInputError('--batch: a JSON line needs a string "query"')
        k = doc.get("k", default_k)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"--batch: k must be an integer from 1 to {MAX_K}, got {k!r}")
        return doc["query"], k
    return line, default_k
