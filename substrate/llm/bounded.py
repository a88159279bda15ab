"""Model answers read within bounds: size, nesting depth and time.

A model endpoint is outside our control: an answer of 200 MB would be read
whole into memory, a slow drip of bytes would keep a worker busy past every
per-read timeout, and a thousand nested brackets would crash the JSON parser
on recursion. The client's HTTP transport therefore stops reading an answer
over `max_answer_bytes` or past its deadline (`timeout_s` for the whole
answer, not per chunk), and an answer's JSON is checked for depth in one pass
before it is parsed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2

MAX_DEPTH = 64


class AnswerTooLarge(httpx2.ReadError):
    """The answer passed `max_answer_bytes` (not worth retrying: it would again)."""


class AnswerTooSlow(httpx2.ReadTimeout):
    """The answer was still arriving at its deadline."""


class BoundedTransport(httpx2.BaseTransport):
    """An HTTP transport whose responses stop at a size and a deadline."""

    def __init__(self, max_bytes: int, deadline_s: float) -> None:
        self._inner = httpx2.HTTPTransport()
        self._max_bytes = max_bytes
        self._deadline_s = deadline_s

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = time.monotonic() + self._deadline_s
        response = self._inner.handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_bytes:
            response.close()
            raise AnswerTooLarge(
                f"the answer declares {declared} bytes, over the limit of {self._max_bytes}",
                request=request,
            )
        stream = _Bounded(response.stream, self._max_bytes, deadline, request)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=stream,
            request=request,
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()


class _Bounded(httpx2.SyncByteStream):
    def __init__(
        self, inner: object, max_bytes: int, deadline: float, request: httpx2.Request
    ) -> None:
        self._inner = inner
        self._max_bytes = max_bytes
        self._deadline = deadline
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self._inner:  # type: ignore[attr-defined]
            read += len(chunk)
            if read > self._max_bytes:
                raise AnswerTooLarge(
                    f"the answer passed {self._max_bytes} bytes", request=self._request
                )
            if time.monotonic() > self._deadline:
                raise AnswerTooSlow(
                    "the answer was still arriving at its deadline", request=self._request
                )
            yield chunk

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


def depth_problem(text: str, limit: int = MAX_DEPTH) -> str | None:
    """Why `text`'s JSON nests too deep to parse safely (None when it does not):
    one pass, brackets counted outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return f"the answer nests deeper than {limit} levels"
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return None
