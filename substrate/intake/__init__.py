"""Intake: the buffer format and the `remember` write path (buffer + daily archive).

Owns `memory/buffer.md` and `memory/archive/*.md`: the one entry matcher every
reader uses and the writer that appends a scanned fact to both files. It
imports `config`, `safety` and `pages` (a fact's `[[slug]]` hints are page
slugs); it must not import `index` or anything above it.
"""

from substrate.intake.buffer import (
    BufferEntry,
    entry_id,
    format_entry,
    format_timestamp,
    parse_at,
    parse_buffer,
    plausible_moment,
    with_hints,
)
from substrate.intake.landing import finish_intake, intake_journal
from substrate.intake.remember import (
    archive_fact,
    buffer_without,
    holding_buffer,
    read_buffer,
    reconcile_archive,
    remember,
    trim_buffer,
)
from substrate.intake.review import held_entries, hold_entries, release_entries

__all__ = [
    "BufferEntry",
    "archive_fact",
    "buffer_without",
    "entry_id",
    "finish_intake",
    "format_entry",
    "format_timestamp",
    "held_entries",
    "hold_entries",
    "holding_buffer",
    "intake_journal",
    "parse_at",
    "parse_buffer",
    "plausible_moment",
    "read_buffer",
    "reconcile_archive",
    "release_entries",
    "remember",
    "trim_buffer",
    "with_hints",
]
