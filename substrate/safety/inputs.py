"""Text that arrives from outside, checked once before anything uses it.

Every entry point (CLI argument, HTTP field, MCP argument) passes user text
through `checked_text`: text over its byte limit is refused with the limit's
name, and text that is not valid Unicode is refused too. A lone surrogate (a
JSON `"\\ud800"`, or a CLI argument whose bytes were not UTF-8) cannot be
written as UTF-8, so without this check it would fail deep inside a write,
after other files had changed.
"""

from __future__ import annotations

from substrate.errors import InvalidInputError, TooLargeError


def surrogate_offset(text: str) -> int | None:
    """Where the first lone surrogate is, or None for text that encodes as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def checked_text(text: str, field: str, max_bytes: int, limit_key: str) -> str:
    """`text` unchanged, or an error naming `field` and what is wrong with it."""
    bad = surrogate_offset(text)
    if bad is not None:
        raise InvalidInputError(
            f"{field} is not valid UTF-8 text (a lone surrogate at character {bad})"
        )
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise TooLargeError(
            f"{field} is {size} bytes, over the limit of {max_bytes} (memory.limits.{limit_key})"
        )
    return text


def printable(text: str) -> str:
    """A name for messages and JSON: undecodable bytes kept from a file name
    (surrogateescape) shown as `\\xNN` instead of failing to print."""
    if surrogate_offset(text) is None:
        return text
    return "".join(_shown(ch) for ch in text)


def _shown(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that did not decode, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return ch


def tail_within(text: str, max_bytes: int) -> str:
    """The end of `text` that fits in `max_bytes` of UTF-8, cut at a character."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[-max_bytes:].decode("utf-8", "ignore")
