"""A real chat-completions server on loopback with scripted answers.

Tests never call a live model: they point the product's LLM client (the
`openai` package with `base_url`) at this server and queue what it answers,
good or bad: a JSON plan, text that is not JSON, an HTTP error, a stall
past the client's timeout. Every request body is kept for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Scripted:
    status: int
    body: dict[str, Any]
    delay_s: float = 0.0
    drip_s: float = 0.0  # the body sent a byte at a time, this long apart
    declared: int | None = None  # a Content-Length other than the body's
    encoded: bytes | None = None  # the body ready to send (a huge one: encoded once, early)


class ScriptedLLM:
    def __init__(self) -> None:
        self.answers: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        self.hung_up = 0  # answers the client stopped reading before their end
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def say(self, content: str | dict[str, Any], prompt_tokens: int = 120) -> None:
        """Answer one request with a completion whose message is `content`."""
        text = content if isinstance(content, str) else json.dumps(content)
        self.answers.append(Scripted(200, _completion(text, prompt_tokens)))

    def fail(self, status: int, message: str = "scripted failure", code: str | None = None) -> None:
        error = {"message": message, "type": "error", "code": code}
        self.answers.append(Scripted(status, {"error": error}))

    def stall(self, seconds: float) -> None:
        """Answer only after `seconds` (past the client's timeout)."""
        self.answers.append(Scripted(200, _completion("{}", 1), seconds))

    def drip(self, content: str | dict[str, Any], every_s: float) -> None:
        """Answer a byte at a time, `every_s` apart: never idle long enough for a
        per-read timeout, never done."""
        text = content if isinstance(content, str) else json.dumps(content)
        self.answers.append(Scripted(200, _completion(text, 1), drip_s=every_s))

    def huge(self, content_bytes: int, *, declare: bool = True) -> None:
        """A well-formed completion whose message is `content_bytes` long; without
        `declare`, no Content-Length: the body ends when the server hangs up."""
        body = _completion("x" * content_bytes, 1)
        encoded = json.dumps(body).encode()
        self.answers.append(Scripted(200, {}, declared=None if declare else -1, encoded=encoded))

    def handle(self, body: dict[str, Any]) -> Scripted:
        self.requests.append(body)
        if not self.answers:
            return Scripted(500, {"error": {"message": "no scripted answer left"}})
        return self.answers.popleft()

    @contextmanager
    def serving(self) -> Iterator[ScriptedLLM]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                answer = llm.handle(body)
                if answer.delay_s:
                    time.sleep(answer.delay_s)
                payload = answer.encoded or json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    if answer.declared != -1:
                        self.send_header("content-length", str(answer.declared or len(payload)))
                    self.end_headers()
                    if not answer.drip_s:
                        self.wfile.write(payload)
                        return
                    for i in range(len(payload)):
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                        time.sleep(answer.drip_s)
                except (BrokenPipeError, ConnectionResetError):
                    llm.hung_up += 1  # the client gave up (a timeout or a size limit)

            def log_message(self, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(timeout=10)


def _completion(content: str, prompt_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 40,
            "total_tokens": prompt_tokens + 40,
        },
    }
