"""What of a chunk a hit shows: the chunk without its title, trimmed to the
lines that share most terms with the query."""

from __future__ import annotations

from substrate.index.bm25 import chunk_keys, tokenize

EXCERPT_CHARS = 400


def chunk_excerpt(text: str, title: str) -> str:
    """The chunk without its title prefix (trimmed to the query by `excerpt_for`)."""
    return text.removeprefix(f"{title}\n\n").strip()


SPAN_BREAK = "\n…\n"  # between the spans of one excerpt (`fusion`)
MORE_SPAN_CHARS = 200  # a second span is shown shorter than the first


def excerpt_for(body: str, query_terms: set[str], limit: int = EXCERPT_CHARS) -> str:
    """`span_excerpt` of each span of a hit's excerpt: the first within `limit`, a
    second (another chunk of the page that scored nearly as well) within
    `MORE_SPAN_CHARS` more, or half of `limit` when that is less (a card's
    share of its budget)."""
    first, *more = body.split(SPAN_BREAK)
    out = [span_excerpt(first, query_terms, limit)]
    for span in more[:1]:
        out.append(span_excerpt(span, query_terms, min(MORE_SPAN_CHARS, limit // 2)))
    return SPAN_BREAK.join(out)


def span_excerpt(body: str, query_terms: set[str], limit: int = EXCERPT_CHARS) -> str:
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
