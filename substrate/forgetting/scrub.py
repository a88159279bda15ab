"""Words out of the decision log (`memory/consolidation-log.jsonl`).

The log tells what happened to each fact; after a forget it may still tell
that something happened, never what was said. What can hold a fact's words:

- a row a model wrote about the fact (its planner's free-text reason): it
  keeps only the words-free fields a history needs (when, what kind of change,
  which page and slot, the ids it names);
- a correction's `text`, and an older release's `forget` row (it carried the
  forgotten text): the text goes;
- any field of any row quoting the words (a reason, a note): they are cut;
- the name and title of a page the forget took away: named nowhere.

The deterministic filer's reasons are made of a page's title, a slot and a
rule ("about 'Iona Reid'", "home: a newer value"), never of the statement:
they stay while the page does. A row with nothing to cut is kept byte for
byte, so a forget that finds none rewrites nothing (the usual case).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any

from substrate.lineage import normalized

FORGOTTEN = "[forgotten]"
# What a row a model wrote about a forgotten fact keeps: nothing in it can hold words.
KEPT = frozenset(
    {
        *("at", "planner", "op", "id", "status", "page", "decided_by", "slot", "lifecycle"),
        *("replaced", "superseded_by", "sha256", "via", "session", "messages", "in_buffer"),
        *("from", "to", "trash"),
    }
)
TEMPLATED = frozenset({"deterministic"})  # planners whose reasons hold no statement
MIN_PHRASE = 12  # shorter words are too common to cut wherever they stand
Row = dict[str, Any]


def scrub_log(
    text: str, facts: Collection[str], phrases: Iterable[str], names: Collection[str]
) -> str:
    """The log's text with `scrub_row` applied to each line that may need it: one
    naming a forgotten fact's id, holding its words or a removed page's name or
    title (`names`), or an older release's forget row. Every other line is kept
    byte for byte, found by a search over the whole text (no line is parsed
    that need not be). A line that needs scrubbing and does not parse goes."""
    cut = sorted({p for p in (normalized(x) for x in phrases) if len(p) >= MIN_PHRASE}, key=len)
    gone = {n for n in names if n}
    needles = [json.dumps(p, ensure_ascii=False)[1:-1] for p in cut] + cut
    needles += [f'"{f}"' for f in facts] + [json.dumps(n, ensure_ascii=False)[1:-1] for n in gone]
    needles += ['"op": "forget"']
    spans = _lines_holding(text, [n.casefold() for n in needles if n])
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(_scrubbed_line(text[start:end], facts, cut[::-1], gone))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _scrubbed_line(line: str, facts: Collection[str], cut: list[str], gone: set[str]) -> str:
    """One line of the log as it must be: kept when it needs nothing cut, gone
    when it does not parse."""
    try:
        row = json.loads(line)
    except ValueError:
        return ""
    if not isinstance(row, dict):
        return line
    new = scrub_row(row, facts, cut, gone)
    return line if new == row else json.dumps(new, ensure_ascii=False) + "\n"


def _lines_holding(text: str, needles: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each line holding any needle (case aside), in order."""
    folded = text.casefold()
    if len(folded) != len(text):  # case folding moved offsets: look line by line
        spans, pos = [], 0
        for line in text.splitlines(keepends=True):
            if any(n in line.casefold() for n in needles):
                spans.append((pos, pos + len(line)))
            pos += len(line)
        return spans
    found: set[tuple[int, int]] = set()
    for needle in needles:
        at = folded.find(needle)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end + 1
            found.add((start, end))
            at = folded.find(needle, end)
    return sorted(found)


def scrub_row(row: Row, facts: Collection[str], cut: list[str], names: Collection[str]) -> Row:
    """One row without the words it may hold (see the module doc)."""
    about = row.get("id") in facts
    if row.get("op") == "forget" or (
        about and row.get("planner", "") not in TEMPLATED and "op" not in row
    ):
        row = {k: v for k, v in row.items() if k in KEPT}
    elif about and "text" in row:
        row = {k: v for k, v in row.items() if k != "text"}
    return {k: _scrubbed(v, cut, names) for k, v in row.items()}


def _scrubbed(value: Any, cut: list[str], names: Collection[str]) -> Any:
    if isinstance(value, str):
        if value in names:
            return FORGOTTEN
        for name in names:
            if name in value:
                value = value.replace(name, FORGOTTEN)
        return cut_phrases(value, cut) if cut else value
    if isinstance(value, list):
        return [_scrubbed(v, cut, names) for v in value]
    if isinstance(value, dict):
        return {k: _scrubbed(v, cut, names) for k, v in value.items()}
    return value


def cut_phrases(text: str, phrases: list[str]) -> str:
    """`text` with each (normalized) phrase it contains, case aside, replaced
    by `[forgotten]`; spacing is folded where a phrase was cut."""
    if not any(p in normalized(text) for p in phrases):
        return text
    spaced = " ".join(text.split())
    lowered = spaced.casefold()
    if len(lowered) != len(spaced):  # case folding moved offsets: keep the folded text
        spaced = lowered
    for phrase in phrases:
        at = lowered.find(phrase)
        while at >= 0:
            spaced = spaced[:at] + FORGOTTEN + spaced[at + len(phrase) :]
            lowered = lowered[:at] + FORGOTTEN + lowered[at + len(phrase) :]
            at = lowered.find(phrase, at + len(FORGOTTEN))
    return spaced
