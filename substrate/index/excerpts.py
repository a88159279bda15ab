"""What of a chunk a hit shows: the chunk without its title, trimmed to the
lines that share most terms with the query."""

from __future__ import annotations

from substrate.index.bm25 import chunk_keys, tokenize

EXCERPT_CHARS = 400


def chunk_excerpt(text: str, title: str) -> str:
    """The chunk without its title prefix (trimmed to the query by `excerpt_for`)."""
    return text.removeprefix(f"{title}\n\n").strip()


SPAN_BREAK = "\n…\n"  # between the spans of one excerpt (`fusion`)
# A value no longer current ("was: …", under the fact that replaced it) yields
# to a current line that shares as many of the query's words, so it is the
# first line to go when room is short; a question about it still finds it.
HISTORY_PENALTY = 0.5
HISTORY_MARKS = ("] was: ", "] no longer true")
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
    overlap = [
        len(query_terms & {*tokenize(line), *chunk_keys(line)}) - HISTORY_PENALTY * _history(line)
        for line in lines
    ]
    best = max(range(len(lines)), key=lambda i: (overlap[i], -i))
    start = end = best
    size = len(lines[best])
    head = _chain_head(lines, best)
    chain = sum(len(line) + 1 for line in lines[head : best + 1]) - 1
    if head < best and chain <= limit:  # an old value shows under the value now
        start, size = head, chain
    elif head < best and overlap[best] - overlap[head] < 1:
        start = end = head  # no room for both: the value now, unless the turn names the old
        size = len(lines[head])
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


def _chain_head(lines: list[str], at: int) -> int:
    """The current fact a history line hangs under (itself when it is not one)."""
    if not _history(lines[at]):
        return at
    head = at
    while head > 0 and lines[head].startswith(" "):
        head -= 1
    return head


def _history(line: str) -> bool:
    return line.startswith(" ") and any(mark in line for mark in HISTORY_MARKS)
