"""How a derived record names what it came from, written with the record.

A fact captured from a conversation carries the ids of the messages it was
drawn from: on its buffer entry (`<!-- src:captured from:1796…,1796… -->`) and,
once filed, in its bullet's marker (`from:1796…,1796…`). One spelling for both,
read and written here: ids joined by commas, no spaces (a marker word).
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_SOURCES = 64  # a fact drawn from more messages than this keeps the newest
MESSAGE_ID_LIMIT = 2**63  # the log's integer: ids are 1 ≤ id < 2^63


def encode_sources(ids: Iterable[int]) -> str:
    kept = sorted({i for i in ids if 0 < i < MESSAGE_ID_LIMIT})[-MAX_SOURCES:]
    return ",".join(str(i) for i in kept)


def decode_sources(value: str | None) -> tuple[int, ...]:
    """The message ids of a `from:` value; a part that is not an id is dropped
    (a hand edit), never fatal."""
    if not value:
        return ()
    out = []
    for part in value.split(","):
        if part.isdigit() and len(part) <= 19:
            n = int(part)
            if 0 < n < MESSAGE_ID_LIMIT:
                out.append(n)
    return tuple(sorted(set(out)))
