"""What of a chunk a hit shows: the chunk without its title, trimmed to the
lines that share most terms with the query."""

from __future__ import annotations

from substrate.index.bm25 import chunk_keys, tokenize

EXCERPT_CHARS = 400


def chunk_excerpt(text: str, title: str) -> str:
    """The chunk without its title prefix (trimmed to the query by `excerpt_for`)."""
    return text.removeprefix(f"{title}\n\n").strip()


def excerpt_for(body: str, query_terms: set[str], limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of the chunk, around the lines sharing most query
    terms (words or name keys)."""
    if len(body) <= limit:
        return body
    lines = body.split("\n")
    overlap = [len(query_terms & {*tokenize(line), *chunk_keys(line)}) for line in lines]
    best = max(range(len(lines)), key=lambda i: (overlap[i], -i))
    start = end = best
    size = len(lines[best])
    while True:
        grow_up = start > 0 and size + len(lines[start - 1]) + 1 <= limit
        grow_down = end + 1 < len(lines) and size + len(lines[end + 1]) + 1 <= limit
        if not (grow_up or grow_down):
            break
        if grow_down and (not grow_up or overlap[end + 1] >= overlap[start - 1]):
            end += 1
            size += len(lines[end]) + 1
        else:
            start -= 1
            size += len(lines[start]) + 1
    window = "\n".join(lines[start : end + 1])
    if len(window) > limit:
        window = window[: limit - 1].rstrip() + "…"
    return ("…" if start > 0 else "") + window + ("…" if end + 1 < len(lines) else "")
