"""Promotion of a direct user turn: candidates → detectors → evidence → write.

Runs after the turn is stored in the log, off the card's path. A statement is
promoted when it is a detected preference or project fact and the user said
the same thing (equal canonical key, the detector rerun on each old message)
in at least `EVIDENCE_SESSIONS` earlier root sessions. Order of a write, and
what undoes what:
1. under the profile lease (which first finishes any change a killed writer
   left), load `promotions.json` and the profile file;
2. change the records in memory; check the new file (budget, secret names,
   exfiltration-shaped values, scanner): a refusal rolls the records back and
   writes nothing;
3. commit the records and the file as one journaled change: both land or
   neither does, whatever kills the process (a hand edit since step 1 is
   kept and the change refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from substrate.config.settings import Settings
from substrate.errors import InvalidInputError, MemoryServiceError, NeedsConfirmationError
from substrate.lineage import fingerprint, read_tombstones
from substrate.profile import (
    check_profile_text,
    commit_profile,
    profile_lease,
    profile_path,
    replace_step,
    with_bullet,
)
from substrate.profile.pending import park
from substrate.promotion.categories import category_of
from substrate.promotion.detect import PREFERENCE, Detection, detect
from substrate.promotion.extract import extract_candidates
from substrate.promotion.store import ACTIVE, FORGOTTEN, PromotionStore
from substrate.safety import read_text_snapshot
from substrate.sessions import NewMessage, SessionLog

EVIDENCE_SESSIONS = 2
EVIDENCE_SCAN = 500  # newest matching messages read per candidate


@dataclass(frozen=True)
class PromotionOutcome:
    statement: str
    content: str
    kind: str
    action: (
        str  # create / strengthen / supersede / reactivate / unchanged / needs-evidence / refused
    )
    evidence_sessions: tuple[str, ...]
    record_id: str | None = None
    reason: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "content": self.content,
            "kind": self.kind,
            "action": self.action,
            "evidence_sessions": list(self.evidence_sessions),
            "record_id": self.record_id,
            "reason": self.reason,
        }


def file_for(kind: str) -> str:
    """Preferences live in USER.md, project facts in MEMORY.md."""
    return "USER.md" if kind == PREFERENCE else "MEMORY.md"


def target_file(found: Detection) -> str:
    return file_for(found.kind)


def evidence_for(
    log: SessionLog,
    found: Detection,
    session_id: str,
    since: float | None = None,
    enough: int | None = None,
) -> dict[str, list[int]]:
    """Earlier root sessions (not `session_id`) where a user's direct message
    states `found` again, detector rerun: session id -> message ids; the newest
    first, stopping once `enough` sessions are found (all, without it)."""
    out: dict[str, list[int]] = {}
    messages = log.search(
        found.search_phrases,
        root_only=True,
        roles=("user",),
        exclude_session=session_id,
        since=since,
        limit=EVIDENCE_SCAN,
        requires=found.triggers,
    )
    for message in messages:
        if enough is not None and len(out) >= enough:
            break
        if not message.direct or message.session_id in out:
            continue
        for candidate in extract_candidates(message.text).candidates:
            again = detect(candidate.text)
            if again is not None and again.key == found.key:
                out.setdefault(message.session_id, []).append(message.id)
                break
    return out


def promote_turn(
    settings: Settings,
    log: SessionLog,
    session_id: str,
    text: str,
    now: float,
    message_id: int | None = None,
) -> list[PromotionOutcome]:
    """Promote what this direct user turn (already logged as `message_id`)
    states again."""
    exists, parent = log.parent_of(session_id)
    if not exists or parent is not None:
        return []  # a child session's words are never promotion's source
    return _promote_statements(settings, log, session_id, text, now, message_id)


def _promote_statements(
    settings: Settings,
    log: SessionLog,
    session_id: str,
    text: str,
    now: float,
    message_id: int | None,
) -> list[PromotionOutcome]:
    outcomes = []
    for candidate in extract_candidates(text).candidates:
        found = detect(candidate.text)
        if found is None:
            continue
        said = _Said(session_id, message_id, candidate.text)
        outcomes.append(_promote(settings, log, said, found, now))
    return outcomes


@dataclass(frozen=True)
class _Said:
    """The statement being promoted, and where it was said."""

    session_id: str
    message_id: int | None
    statement: str


def record_turns(
    settings: Settings,
    log: SessionLog,
    session_id: str,
    messages: list[NewMessage],
    now: float,
    parent_id: str | None = None,
) -> tuple[list[int], list[PromotionOutcome]]:
    """What prompt assembly calls once a turn is answered: store the turns, then
    promote what each direct user turn states again (after it is stored)."""
    ids = log.append(session_id, messages, now, parent_id)
    outcomes: list[PromotionOutcome] = []
    if log.parent_of(session_id)[1] is not None:
        return ids, outcomes  # a child session's words are never promotion's source
    for message_id, message in zip(ids, messages, strict=True):
        if message.role == "user" and message.direct:
            outcomes += _promote_statements(
                settings, log, session_id, message.text, now, message_id
            )
    return ids, outcomes


def _promote(
    settings: Settings, log: SessionLog, said: _Said, found: Detection, now: float
) -> PromotionOutcome:
    ws = settings.workspace
    session_id, statement = said.session_id, said.statement
    previous = PromotionStore.load(ws).find(found.key)
    since = forgotten_since(settings, found) if previous is None else None
    if previous is not None and previous.status == FORGOTTEN:
        since = previous.forgotten_at
    found_in = evidence_for(log, found, session_id, since, EVIDENCE_SESSIONS)
    evidence = sorted(found_in)
    base = PromotionOutcome(statement, found.content, found.kind, "needs-evidence", tuple(evidence))
    if len(evidence) < EVIDENCE_SESSIONS:
        return base
    if previous and previous.status == ACTIVE and session_id in previous.evidence_sessions:
        return PromotionOutcome(
            statement, found.content, found.kind, "unchanged", tuple(evidence), previous.id
        )  # this session already counted: nothing to write
    with profile_lease(ws):
        store = PromotionStore.load(ws)
        name = target_file(found)
        path = profile_path(ws, name)
        text, snapshot = read_text_snapshot(path)
        messages = {**found_in}
        if said.message_id is not None:
            messages[session_id] = [said.message_id]
        change = store.apply(found, [*evidence, session_id], now, messages)
        outcome = PromotionOutcome(
            statement, found.content, found.kind, change.action, tuple(evidence), change.record.id
        )
        if change.action == "strengthen":
            return _flushed(store, outcome)
        replacing = change.replaced.content if change.replaced else None
        new_text = with_bullet(name, text, found.content, replacing)
        try:
            check_profile_text(settings, name, new_text, f"- {found.content}", "user")
        except NeedsConfirmationError as exc:  # parked for the person, never written here
            store.rollback()
            sessions = (*evidence, session_id)
            park(settings, name, found.content, "promotion", exc.message, sessions)
            return _refused(outcome, exc)
        except InvalidInputError as exc:
            store.rollback()
            return _refused(outcome, exc)
        try:
            commit_profile(ws, [store.step(), replace_step(path, new_text, snapshot)])
        except (OSError, MemoryServiceError) as exc:
            store.rollback()
            return _refused(outcome, exc)
        store.committed()
        return outcome


def _flushed(store: PromotionStore, outcome: PromotionOutcome) -> PromotionOutcome:
    try:
        store.flush()
    except (OSError, MemoryServiceError) as exc:
        return _refused(outcome, exc)
    return outcome


def _refused(outcome: PromotionOutcome, exc: BaseException) -> PromotionOutcome:
    return PromotionOutcome(
        outcome.statement,
        outcome.content,
        outcome.kind,
        "refused",
        outcome.evidence_sessions,
        None,
        str(exc),
    )


def forgotten_since(settings: Settings, found: Detection) -> float | None:
    """When the person forgot a promotion of `found`'s content (its record
    erased, its tombstone kept by a keyed fingerprint of its key): evidence said
    before then never promotes it again. None when they never did."""
    ws = settings.workspace
    graves = read_tombstones(ws)
    if not graves.records:  # no promotion was ever forgotten
        return None
    row = graves.fingerprints.get(fingerprint(ws, found.key))
    at = row.get("at") if row is not None and row.get("kind") == "promotion" else None
    return float(at) if isinstance(at, int | float) else None


def category(found: Detection) -> str | None:
    return category_of(found.key) if found.kind == PREFERENCE else None
