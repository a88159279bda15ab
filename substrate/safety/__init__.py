"""Safety: the scanner every write runs, atomic drift-aware file writes, and locks.

Owns how text is judged before it is stored (`scanner`), how any file is
replaced without a torn or lost write (`safe_files`), and the advisory locks
that keep writers from interleaving (`locks`). It is the floor of the
substrate: it imports nothing but `substrate.errors`, so every other room may
use it, and it must not import any other room.
"""

from substrate.safety import journal
from substrate.safety.echoes import BLOCK_TAGS, has_echo, strip_echoes
from substrate.safety.inputs import checked_text, printable, surrogate_offset, tail_within
from substrate.safety.locks import hold_lock
from substrate.safety.patterns import (
    DOTALL,
    IGNORECASE,
    MULTILINE,
    anchored,
    escape,
    linear,
    runs,
    short,
)
from substrate.safety.safe_files import (
    MAX_FILE_BYTES,
    FileSnapshot,
    PlannedWrite,
    append_bytes,
    fsync_dir,
    last_byte,
    read_bytes_snapshot,
    read_file_at,
    read_regular_file,
    read_text_file,
    read_text_snapshot,
    sweep_stale_temps,
    unlinked_folder,
    write_atomic,
    write_many_atomic,
)
from substrate.safety.scanner import (
    CONFUSABLES,
    RULES,
    SOURCES,
    DeferredDetector,
    LearnedDetector,
    Scanner,
    Verdict,
    strip_hidden_reasoning,
)
from substrate.safety.sizes import database_bytes, file_bytes, folder_bytes
from substrate.safety.space import WRITE_ROOM, require_room

__all__ = [
    "BLOCK_TAGS",
    "CONFUSABLES",
    "DOTALL",
    "IGNORECASE",
    "MAX_FILE_BYTES",
    "MULTILINE",
    "RULES",
    "SOURCES",
    "WRITE_ROOM",
    "DeferredDetector",
    "FileSnapshot",
    "LearnedDetector",
    "PlannedWrite",
    "Scanner",
    "Verdict",
    "anchored",
    "append_bytes",
    "checked_text",
    "database_bytes",
    "escape",
    "file_bytes",
    "folder_bytes",
    "fsync_dir",
    "has_echo",
    "hold_lock",
    "journal",
    "last_byte",
    "linear",
    "printable",
    "read_bytes_snapshot",
    "read_file_at",
    "read_regular_file",
    "read_text_file",
    "read_text_snapshot",
    "require_room",
    "runs",
    "short",
    "strip_echoes",
    "strip_hidden_reasoning",
    "surrogate_offset",
    "sweep_stale_temps",
    "tail_within",
    "unlinked_folder",
    "write_atomic",
    "write_many_atomic",
]
