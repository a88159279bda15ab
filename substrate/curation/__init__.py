"""Curation: learning durable facts from what was said.

A model extracts facts with exact evidence spans from bounded slices of the
conversation log (`extract`); a deterministic reviewer decides what is
written, queued for an operator or ignored (`review`); every run and
candidate is recorded (`store`) and the operator controls are implemented
once (`operations`). Offline (no LLM configured) curation is off and says so.
"""

from substrate.curation.capture import (
    capture,
    capture_any,
    capture_offline,
    capture_session,
    explain_capture,
)
from substrate.curation.compact import compact, restore
from substrate.curation.curate import CurationOutcome, curate
from substrate.curation.extract import SCHEMA, Extraction, Fact, extract, slices
from substrate.curation.finalize import run_finalizations
from substrate.curation.operations import (
    WRITABLE,
    LineFile,
    add_line,
    apply_candidate,
    confirm_line,
    edit_candidate,
    pending,
    recent,
    recent_json,
    reject_candidate,
    review_json,
    undo_candidate,
)
from substrate.curation.review import AUTO, IGNORE, PENDING, Decision, review
from substrate.curation.store import CurationStore

__all__ = [
    "AUTO",
    "IGNORE",
    "PENDING",
    "SCHEMA",
    "WRITABLE",
    "CurationOutcome",
    "CurationStore",
    "Decision",
    "Extraction",
    "Fact",
    "LineFile",
    "add_line",
    "apply_candidate",
    "capture",
    "capture_any",
    "capture_offline",
    "capture_session",
    "compact",
    "confirm_line",
    "curate",
    "edit_candidate",
    "explain_capture",
    "extract",
    "pending",
    "recent",
    "recent_json",
    "reject_candidate",
    "restore",
    "review",
    "review_json",
    "run_finalizations",
    "slices",
    "undo_candidate",
]
