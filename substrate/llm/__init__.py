"""LLM: one client for any OpenAI-compatible chat-completions endpoint.

Owns the connection settings (`[memory.substrate.llm]`), structured answers
(a JSON schema sent as `response_format`, the answer parsed and handed back
with its token counts), and the translation of every provider failure into
the product's error classes: `TransientError` (timeouts, dropped connections,
5xx, 429), `BillingError` (402, exhausted quota) and `LlmConfigError`
(a refused key, an unknown model). Nothing here decides what an answer means:
the callers (consolidation, curation) validate it. It imports only `config`,
`safety` and the error tree, and must not import any other room.
"""

from substrate.errors import LlmAnswerError, LlmConfigError
from substrate.llm.client import (
    ChatClient,
    JsonAnswer,
    LlmSettings,
    Usage,
    open_chat_client,
    resolve_llm,
)

__all__ = [
    "ChatClient",
    "JsonAnswer",
    "LlmAnswerError",
    "LlmConfigError",
    "LlmSettings",
    "Usage",
    "open_chat_client",
    "resolve_llm",
]
