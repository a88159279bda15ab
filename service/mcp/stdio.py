"""MCP over stdio, with one guard the SDK's transport lacks: a request whose
JSON holds a lone surrogate (`"\\ud800"`: valid JSON, not valid Unicode) is
answered with an error naming the problem, instead of being dropped without
a word (the SDK's parser refuses the line and nothing answers its id).

The SDK's `stdio_server` still owns stdout (it diverts fd 1 while serving, so
stray output never corrupts the wire); only the lines read from stdin pass
through `_CheckedLines` first.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from substrate.safety import surrogate_offset

INVALID_PARAMS = -32602


def serve_stdio(server: MCPServer) -> None:
    anyio.run(_serve, server)


async def _serve(server: MCPServer) -> None:
    raw = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = _CheckedLines(raw)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.reply = write_stream
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())


class _CheckedLines:
    """The request lines, less those holding a lone surrogate, which are answered
    with an error on the transport's write stream."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.reply: Any = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._raw:
            refused = _refusal(line)
            if refused is None or self.reply is None:
                yield line
                continue
            await self.reply.send(SessionMessage(refused))


def _refusal(line: str) -> types.JSONRPCError | None:
    """An error answer for a request carrying a lone surrogate, or None."""
    if "\\u" not in line:
        return None
    try:
        doc = json.loads(line)
    except ValueError:
        return None  # not JSON: the SDK answers that itself
    where = _surrogate_path(doc, "")
    if where is None or not isinstance(doc, dict) or doc.get("id") is None:
        return None
    error = types.ErrorData(
        code=INVALID_PARAMS,
        message=f"{where or 'the request'} is not valid Unicode text (a lone surrogate)",
    )
    return types.JSONRPCError(jsonrpc="2.0", id=doc["id"], error=error)


def _surrogate_path(value: Any, path: str) -> str | None:
    if isinstance(value, str):
        return path if surrogate_offset(value) is not None else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if isinstance(key, str) and surrogate_offset(key) is not None:
            return path or "a key"
        found = _surrogate_path(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None
