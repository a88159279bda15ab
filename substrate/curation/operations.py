"""Operator controls, implemented once (the CLI and HTTP call these): apply,
reject, undo, edit, the review queue and recent operations (a forget erases,
in `forgetting`). Every
write takes the profile lease and goes out as one journaled commit of the
profile file and the curation store (`profile.commit_profile`), so a kill at
any point never leaves a line no candidate owns, nor a candidate marked
applied whose line is missing."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Literal, get_args

from substrate.config.settings import Settings
from substrate.curation.store import Candidate, CurationStore, Operation, sha256
from substrate.errors import InvalidInputError, NeedsConfirmationError, StaleWriteError
from substrate.profile import (
    budget_for,
    check_profile_text,
    commit_profile,
    profile_lease,
    profile_path,
    replace_step,
    with_bullet,
    without_bullet,
)
from substrate.profile.pending import park, take
from substrate.safety import FileSnapshot, journal, read_text_snapshot

# The files a person's own line goes to (SOUL.md is hand-kept), and that `forget` takes lines from.
LineFile = Literal["USER.md", "MEMORY.md"]
WRITABLE: tuple[str, ...] = get_args(LineFile)


def lease(settings: Settings) -> AbstractContextManager[None]:
    """The profile lease every program writer of the profile files takes."""
    return profile_lease(settings.workspace)


class Edits:
    """The profile files one change rewrites, each as read and as it will be."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._files: dict[str, tuple[str, FileSnapshot, str]] = {}

    def text(self, name: str) -> str:
        """The file as this change has it so far."""
        if name not in self._files:
            text, snapshot = read_text_snapshot(profile_path(self._settings.workspace, name))
            self._files[name] = (text, snapshot, text)
        return self._files[name][2]

    def set(self, name: str, text: str) -> None:
        self.text(name)
        before, snapshot, _ = self._files[name]
        self._files[name] = (before, snapshot, text)

    def add_line(self, name: str, content: str, source: str, confirmed: bool = False) -> Operation:
        """`- content` added to `name` (checked: budget, secrets, scanner under the
        policy of `source`, an action only when `confirmed`); the operation that
        undoes it."""
        new = with_bullet(name, self.text(name), content)
        check_profile_text(self._settings, name, new, f"- {content}", source, confirmed)
        self.set(name, new)
        return Operation(name, f"- {content}", sha256(new))

    def steps(self) -> list[journal.Step]:
        """A step for every file this change rewrites."""
        ws = self._settings.workspace
        return [
            replace_step(profile_path(ws, name), after, snapshot)
            for name, (before, snapshot, after) in self._files.items()
            if after != before
        ]

    def commit(self, store: CurationStore) -> None:
        """The store and every changed file, as one change."""
        commit_profile(self._settings.workspace, [store.step(), *self.steps()])
        store.committed()


def _applied(store: CurationStore, candidate_id: str) -> tuple[Candidate, Operation]:
    """The candidate and the line it wrote; refused unless it is applied."""
    candidate = store.get(candidate_id)
    if candidate.status != "applied" or candidate.operation is None:
        raise InvalidInputError(f"candidate {candidate_id} is {candidate.status}, not applied")
    return candidate, candidate.operation


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
        edits = Edits(settings)
        op = edits.add_line(candidate.operation.file, candidate.fact["text"], "extracted")
        candidate.operation, candidate.status = op, "applied"
        store.written[op.file] = str(op.after_sha256)
        edits.commit(store)
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
        edits = Edits(settings)
        text = edits.text(op.file)
        if (
            sha256(text) != store.written.get(op.file, op.after_sha256)
            or op.line not in text.splitlines()
        ):
            raise StaleWriteError(
                f"memory/profile/{op.file} changed since curation last wrote it; "
                f"nothing undone for {candidate_id} (edit the file by hand)"
            )
        after = without_bullet(text, op.line[2:])
        edits.set(op.file, after)
        store.written[op.file] = sha256(after)
        candidate.status = "undone"
        edits.commit(store)
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


def add_line(
    settings: Settings,
    name: str,
    text: str,
    confirmed: bool = False,
    via: str = "user",
    proposed: bool = False,
) -> dict[str, Any]:
    """A person's own line, `- TEXT`, added to `name` (USER.md or MEMORY.md):
    checked like every profile write (budget, secret names, unsafe values) and
    scanned under the user policy, where a text the scanner would only hold is
    refused too (a profile line is trusted on every card: it is never held).
    A line that asks the assistant to act is written only when `confirmed` (the
    person said so, at a terminal or in the web tab); otherwise it is parked
    and the answer is `{pending, reason}`. `proposed`: an assistant's surface
    added it (MCP, the API without the person's credential): checked the same,
    then parked whatever its wording, since only the person writes their trusted
    profile. `forget` takes it back by its text."""
    content = " ".join(text.split())
    if not content:
        raise InvalidInputError("profile line: the text is empty")
    if name not in WRITABLE:
        raise InvalidInputError(
            f"profile file {name!r}: a line is added to {' or '.join(WRITABLE)} "
            "(SOUL.md is edited by hand)"
        )
    with lease(settings):
        store = CurationStore.load(settings.workspace)
        edits = Edits(settings)
        before = edits.text(name)
        if f"- {content}" in before.splitlines():
            raise InvalidInputError(f"memory/profile/{name} already has the line '- {content}'")
        try:
            op = edits.add_line(name, content, "user", confirmed)
        except NeedsConfirmationError as exc:
            parked = park(settings, name, content, via, exc.message)
            return {"pending": parked.id, "reason": exc.message, "file": name, "line": content}
        if proposed:  # checked, not written: the person confirms what an assistant adds
            why = f"added through {via}, an assistant's surface: the person confirms it"
            parked = park(settings, name, content, via, why)
            return {"pending": parked.id, "reason": why, "file": name, "line": content}
        if store.written.get(name) == sha256(before):
            store.written[name] = str(op.after_sha256)  # undo still sees its own write
        edits.commit(store)
    budget = budget_for(settings, name)
    return {"file": name, "line": op.line, "chars": len(edits.text(name)), "budget": budget}


def confirm_line(settings: Settings, line_id: str) -> dict[str, Any]:
    """A parked line written, the person having confirmed it (the web tab's
    Profile panel, or `memory profile confirm` at a terminal)."""
    row = take(settings, line_id)
    try:
        return add_line(settings, row.file, row.text, confirmed=True, via=row.via)
    except BaseException:
        park(settings, row.file, row.text, row.via, row.reason)  # still waiting
        raise


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
        edits = Edits(settings)
        current = edits.text(op.file)
        if op.line not in current.splitlines():
            raise StaleWriteError(
                f"memory/profile/{op.file} no longer holds {op.line!r}; nothing edited"
            )
        new = with_bullet(op.file, current, content, replacing=op.line[2:])
        check_profile_text(settings, op.file, new, f"- {content}", "user")
        edits.set(op.file, new)
        candidate.fact = {**candidate.fact, "text": content, "edited": True}
        candidate.operation = Operation(op.file, f"- {content}", sha256(new))
        store.written[op.file] = sha256(new)
        edits.commit(store)
        return candidate.as_json()
