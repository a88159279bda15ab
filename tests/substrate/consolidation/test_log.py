"""The decision log read incrementally: rows appended by this process or
another are all read, a torn last line waits until it is whole, and a
compaction or a hand edit that shortens the file is read again from the top."""

from __future__ import annotations

import json
import os

from substrate import Settings
from substrate.consolidation.log import append_rows, log_path, rows


def test_rows_appended_anywhere_are_read_and_a_torn_line_waits(settings: Settings) -> None:
    append_rows(settings, [{"op": "a"}])
    assert [r["op"] for r in rows(settings)] == ["a"]
    with log_path(settings).open("a") as f:  # another process, mid-write
        f.write(json.dumps({"op": "b"}) + "\n" + '{"op": "c"')
    assert [r["op"] for r in rows(settings)] == ["a", "b"]
    with log_path(settings).open("a") as f:
        f.write("}\n")
    append_rows(settings, [{"op": "d"}])
    assert [r["op"] for r in rows(settings)] == ["a", "b", "c", "d"]


def test_a_rewritten_or_shortened_log_is_read_from_the_top(settings: Settings) -> None:
    append_rows(settings, [{"op": "a"}, {"op": "b"}])
    assert len(rows(settings)) == 2
    path = log_path(settings)
    tmp = path.with_suffix(".new")
    tmp.write_text(json.dumps({"op": "z"}) + "\n")
    os.replace(tmp, path)  # a compaction: a new file
    assert [r["op"] for r in rows(settings)] == ["z"]
    with path.open("r+") as f:  # a hand edit in place that shortens it
        f.truncate(0)
        f.write(json.dumps({"op": "y"}) + "\n")
    assert [r["op"] for r in rows(settings)] == ["y"]
