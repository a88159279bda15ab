"""Operator controls, implemented once (the CLI and HTTP call these): apply,
reject, undo, the review queue and recent operations. Every write takes the
profile lease (`profile_lock_path`) and is drift-aware."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from substrate.config.settings import Settings
from substrate.curation.store import Candidate, CurationStore, Operation, sha256
from substrate.errors import InvalidInputError, StaleWriteError
from substrate.profile import (
    check_profile_text,
    profile_lock_path,
    profile_path,
    with_bullet,
    without_bullet,
)
from substrate.safety import hold_lock, read_text_snapshot, write_atomic

LOCK_TIMEOUT_S = 10.0


def lease(settings: Settings) -> AbstractContextManager[None]:
    """The profile lease every program writer of the profile files takes."""
    return hold_lock(
        profile_lock_path(settings.workspace), timeout_s=LOCK_TIMEOUT_S, purpose="profile"
    )


def _applied(store: CurationStore, candidate_id: str) -> tuple[Candidate, Operation]:
    """The candidate and the line it wrote; refused unless it is applied."""
    candidate = store.get(candidate_id)
    if candidate.status != "applied" or candidate.operation is None:
        raise InvalidInputError(f"candidate {candidate_id} is {candidate.status}, not applied")
    return candidate, candidate.operation


def apply_line(settings: Settings, name: str, content: str) -> Operation:
    """Add `- content` to a profile file, checked; the operation that undoes it.
    Call under the profile lease."""
    path = profile_path(settings.workspace, name)
    text, snapshot = read_text_snapshot(path)
    new = with_bullet(name, text, content)
    check_profile_text(settings, name, new, f"- {content}", "extracted")
    write_atomic(path, new, snapshot)
    return Operation(name, f"- {content}", sha256(new))


def apply_candidate(settings: Settings, candidate_id: str) -> dict[str, Any]:
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        candidate = store.get(candidate_id)
        if candidate.status != "pending":
            raise InvalidInputError(f"candidate {candidate_id} is {candidate.status}, not pending")
        if candidate.operation is None:
            raise InvalidInputError(
                f"candidate {candidate_id} has no applyable operation ({candidate.reason}); "
                "edit the profile file by hand if it belongs there"
            )
        candidate.operation = apply_line(settings, candidate.operation.file, candidate.fact["text"])
        candidate.status = "applied"
        store.written[candidate.operation.file] = str(candidate.operation.after_sha256)
        store.flush()
        return candidate.as_json()


def reject_candidate(settings: Settings, candidate_id: str) -> dict[str, Any]:
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        candidate = store.get(candidate_id)
        if candidate.status != "pending":
            raise InvalidInputError(f"candidate {candidate_id} is {candidate.status}, not pending")
        candidate.status = "rejected"
        store.flush()
        return candidate.as_json()


def undo_candidate(settings: Settings, candidate_id: str) -> dict[str, Any]:
    """Take back exactly the line an applied candidate added; refused when the
    file changed since (a hand edit, a later write): say so, change nothing."""
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        candidate, op = _applied(store, candidate_id)
        path = profile_path(settings.workspace, op.file)
        text, snapshot = read_text_snapshot(path)
        if (
            sha256(text) != store.written.get(op.file, op.after_sha256)
            or op.line not in text.splitlines()
        ):
            raise StaleWriteError(
                f"memory/profile/{op.file} changed since curation last wrote it; "
                f"nothing undone for {candidate_id} (edit the file by hand)"
            )
        after = without_bullet(text, op.line[2:])
        write_atomic(path, after, snapshot)
        store.written[op.file] = sha256(after)
        candidate.status = "undone"
        store.flush()
        return candidate.as_json()


def pending(settings: Settings) -> list[Candidate]:
    return [c for c in CurationStore.load(settings.workspace).candidates if c.status == "pending"]


def recent(settings: Settings, limit: int = 50) -> list[Candidate]:
    applied = [
        c for c in CurationStore.load(settings.workspace).candidates if c.status == "applied"
    ]
    return sorted(applied, key=lambda c: -c.at)[:limit]


def review_json(settings: Settings) -> dict[str, Any]:
    """`{"candidates": [{"id", "text", "reason", "target"}]}`: what waits for review."""
    return {
        "candidates": [
            {"id": c.id, "text": c.fact["text"], "reason": c.reason, "target": c.fact["target"]}
            for c in pending(settings)
        ]
    }


def recent_json(settings: Settings) -> dict[str, Any]:
    """`{"operations": [{"id", "text", "target", "file"}]}`: applied, newest first."""
    return {
        "operations": [
            {
                "id": c.id,
                "text": c.fact["text"],
                "target": c.fact["target"],
                "file": c.operation.file if c.operation else None,
            }
            for c in recent(settings)
        ]
    }


def forget_candidate(settings: Settings, candidate_id: str) -> dict[str, Any]:
    """Take an applied candidate's line out of its file (wherever it now is in
    the file, whatever else changed) and mark it forgotten."""
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        candidate, op = _applied(store, candidate_id)
        path = profile_path(settings.workspace, op.file)
        text, snapshot = read_text_snapshot(path)
        after = without_bullet(text, op.line[2:])
        write_atomic(path, after, snapshot)
        store.written[op.file] = sha256(after)
        candidate.status = "forgotten"
        store.flush()
        return candidate.as_json()


def forget_text(settings: Settings, text: str) -> list[str]:
    """Take the bullet `- TEXT` out of USER.md and MEMORY.md; the files it left."""
    content = " ".join(text.split())
    left = []
    with lease(settings):
        for name in ("USER.md", "MEMORY.md"):
            path = profile_path(settings.workspace, name)
            current, snapshot = read_text_snapshot(path)
            if f"- {content}" in current.splitlines():
                write_atomic(path, without_bullet(current, content), snapshot)
                left.append(name)
    if not left:
        raise InvalidInputError(f"no line '- {content}' in USER.md or MEMORY.md")
    return left


def edit_candidate(settings: Settings, candidate_id: str, text: str) -> dict[str, Any]:
    """Replace an applied candidate's line with the operator's wording (their own
    words: the user policy), budget checked, drift-aware; undo then takes the
    edited line back."""
    content = " ".join(text.split())
    if not content:
        raise InvalidInputError("edit: the new text is empty")
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        candidate, op = _applied(store, candidate_id)
        path = profile_path(settings.workspace, op.file)
        current, snapshot = read_text_snapshot(path)
        if op.line not in current.splitlines():
            raise StaleWriteError(
                f"memory/profile/{op.file} no longer holds {op.line!r}; nothing edited"
            )
        new = with_bullet(op.file, current, content, replacing=op.line[2:])
        check_profile_text(settings, op.file, new, f"- {content}", "user")
        write_atomic(path, new, snapshot)
        candidate.fact = {**candidate.fact, "text": content, "edited": True}
        candidate.operation = Operation(op.file, f"- {content}", sha256(new))
        store.written[op.file] = sha256(new)
        store.flush()
        return candidate.as_json()
