"""`ChatClient`: a chat-completions call that answers JSON, or fails in one of
the product's error classes.

The `openai` package speaks to any OpenAI-compatible server through its
`base_url` (hosted APIs, Ollama, vLLM, llama.cpp's server). Its own retries
are off: the job queue owns retrying, on the right curve. Answers are read
within bounds (`bounded`: size, time for the whole answer, JSON depth). An
answer that is not a JSON object, is too large or nests too deep is
`LlmAnswerError`, which callers treat as "the model said nothing usable"
(consolidation falls back to its deterministic filer), never as a failure to
retry.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx2

from substrate.config.schema import LLM_KEYS
from substrate.config.settings import Settings
from substrate.errors import (
    BillingError,
    LlmAnswerError,
    LlmConfigError,
    TransientError,
)
from substrate.llm.bounded import AnswerTooLarge, BoundedTransport, depth_problem

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True)
class LlmSettings:
    base_url: str
    model: str
    api_key: str | None
    timeout_s: float
    max_output_tokens: int
    max_answer_bytes: int = 1024 * 1024


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )

    def as_json(self) -> dict[str, int]:
        return {"prompt": self.prompt_tokens, "completion": self.completion_tokens}


@dataclass(frozen=True)
class JsonAnswer:
    data: dict[str, Any]
    usage: Usage
    seconds: float


def resolve_llm(settings: Settings) -> LlmSettings | None:
    """The configured endpoint, or None when no `base_url` and `model` are set."""
    table = {
        key: settings.config.substrate.get("llm", {}).get(key, default)
        for key, (_, default) in LLM_KEYS.items()
    }
    if not table["base_url"] or not table["model"]:
        return None
    return LlmSettings(
        base_url=str(table["base_url"]),
        model=str(table["model"]),
        api_key=settings.llm_api_key,
        timeout_s=float(table["timeout_s"]),
        max_output_tokens=int(table["max_output_tokens"]),
        max_answer_bytes=int(table["max_answer_bytes"]),
    )


class ChatClient:
    """One endpoint and model; counts the tokens it spent (thread-safe)."""

    def __init__(self, llm: LlmSettings) -> None:
        import openai  # its types take a third of a second to import: only when a model is used

        self.settings = llm
        # A local server needs no key, but the package refuses to start without
        # one (and would read OPENAI_API_KEY from the environment otherwise).
        self._http = httpx2.Client(
            transport=BoundedTransport(llm.max_answer_bytes, llm.timeout_s),
            timeout=llm.timeout_s,
            headers={"Accept-Encoding": "identity"},  # what is bounded is what is read
        )
        self._client = openai.OpenAI(
            base_url=llm.base_url,
            api_key=llm.api_key or "not-needed",
            timeout=llm.timeout_s,
            max_retries=0,
            http_client=self._http,
        )
        self._lock = threading.Lock()
        self.usage = Usage()
        self.last_failure: tuple[float, str] | None = None  # (when, why): unreachable now
        self.answered = False

    def health(self) -> str:
        """`ok`, `not used yet`, or why the last call failed (unreachable, rate- or
        billing-limited): what `/healthz` and `status` say of the model, without
        calling it."""
        with self._lock:
            failed = self.last_failure
            used = self.answered
        if failed is not None:
            return f"unreachable: {failed[1]}"
        return "ok" if used else "not used yet"

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any], name: str
    ) -> JsonAnswer:
        """The model's answer to `messages`, asked for as `schema`, parsed."""
        import openai

        started = time.perf_counter()
        # The package's overloads type each message role apart; ours are plain dicts.
        create: Any = self._client.chat.completions.create
        try:
            response = create(
                model=self.settings.model,
                messages=messages,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": True},
                },
                max_tokens=self.settings.max_output_tokens,
                temperature=0,
            )
        except openai.APIError as exc:
            failure = _translated(exc, self.settings)
            if isinstance(failure, TransientError | BillingError):
                with self._lock:
                    self.last_failure = (time.time(), str(failure))
            raise failure from None
        usage = _usage(response)
        with self._lock:
            self.usage = self.usage + usage
            self.last_failure, self.answered = None, True
        return JsonAnswer(_parsed(response), usage, time.perf_counter() - started)

    def close(self) -> None:
        self._client.close()
        self._http.close()


def open_chat_client(settings: Settings) -> ChatClient | None:
    llm = resolve_llm(settings)
    return ChatClient(llm) if llm is not None else None


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    return Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))


def _parsed(response: Any) -> dict[str, Any]:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        raise LlmAnswerError("the answer has no message") from None
    if not isinstance(content, str) or not content.strip():
        raise LlmAnswerError("the answer is empty")
    text = content.strip()
    if text.startswith("```"):  # some servers fence JSON even when asked for a schema
        text = text.strip("`").removeprefix("json").strip()
    deep = depth_problem(text)
    if deep is not None:
        raise LlmAnswerError(deep)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise LlmAnswerError(f"the answer is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise LlmAnswerError("the answer is not a JSON object")
    return data


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _translated(exc: openai.APIError, llm: LlmSettings) -> Exception:
    """The provider's failure as one of ours, with a line a user can act on."""
    import openai

    where = f"{llm.base_url} ({llm.model})"
    cause = exc.__cause__
    while cause is not None and not isinstance(cause, AnswerTooLarge):
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        return LlmAnswerError(f"the model at {where}: {cause}")
    if isinstance(exc, openai.APITimeoutError):
        return TransientError(f"the model at {where} did not answer within {llm.timeout_s} s")
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(f"cannot reach the model at {where}: {exc}")
    status = getattr(exc, "status_code", None)
    body = str(getattr(exc, "message", exc))
    if status == 402 or "insufficient_quota" in body or "quota" in body.lower():
        return BillingError(f"the model provider at {where} refused for billing: {body}")
    if status == 429 or (isinstance(status, int) and status >= 500):
        return TransientError(f"the model at {where} answered {status}: {body}")
    return LlmConfigError(f"the model at {where} refused the request ({status}): {body}")
