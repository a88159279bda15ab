"""Safety: the scanner every write runs, atomic drift-aware file writes, and locks.

Owns how text is judged before it is stored (`scanner`), how any file is
replaced without a torn or lost write (`safe_files`), and the advisory locks
that keep writers from interleaving (`locks`). It is the floor of the
substrate: it imports nothing but `substrate.errors`, so every other room may
use it, and it must not import any other room.
"""

from substrate.safety.inputs import checked_text, printable, surrogate_offset, tail_within
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import (
    FileSnapshot,
    PlannedWrite,
    read_bytes_snapshot,
    read_regular_file,
    read_text_snapshot,
    sweep_stale_temps,
    write_atomic,
    write_many_atomic,
)
from substrate.safety.scanner import (
    RULES,
    SOURCES,
    LearnedDetector,
    Scanner,
    Verdict,
    strip_hidden_reasoning,
)

__all__ = [
    "RULES",
    "SOURCES",
    "FileSnapshot",
    "LearnedDetector",
    "PlannedWrite",
    "Scanner",
    "Verdict",
    "checked_text",
    "hold_lock",
    "printable",
    "read_bytes_snapshot",
    "read_regular_file",
    "read_text_snapshot",
    "strip_hidden_reasoning",
    "surrogate_offset",
    "sweep_stale_temps",
    "tail_within",
    "write_atomic",
    "write_many_atomic",
]
