"""Erasing from the profile: lines, promotions and curation candidates.

What a forget takes out of the trusted profile, in one journaled change of
the profile files, `promotions.json`, `memory-curation.json`, the compaction
backups and the tombstone, under the profile lease:

- a line the person named: out of USER.md and MEMORY.md and every backup,
  with the promotion records and curation candidates that wrote it;
- a promotion or a candidate the person named: erased whole (a record keeps
  no words once forgotten; its tombstone's fingerprint keeps old evidence
  from promoting it again), its line out of its file, and a promotion it had
  superseded active again (a forgotten successor gives the slot back);
- a promotion with evidence among forgotten messages: derived again from what
  the log still holds; below the evidence it needs (the current session and
  `EVIDENCE_SESSIONS` earlier ones), its line leaves the profile and the
  record goes (its words may still be in the log: it is not a forget of
  them, so no tombstone);
- a curation candidate with forgotten evidence loses those spans; with none
  left it is erased (and its line taken back when it was applied).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from substrate.config import Settings
from substrate.curation.operations import WRITABLE, Edits
from substrate.curation.store import Candidate, CurationStore, sha256
from substrate.errors import InvalidInputError, MemoryServiceError
from substrate.forgetting.orders import Order
from substrate.lineage import fingerprint, normalized, tombstone_step
from substrate.profile import (
    check_profile_text,
    commit_profile,
    profile_lease,
    with_bullet,
    without_bullet,
)
from substrate.promotion import EVIDENCE_SESSIONS, PromotionRecord, PromotionStore, file_for
from substrate.promotion.detect import detect
from substrate.promotion.extract import extract_candidates
from substrate.promotion.store import ACTIVE, SUPERSEDED
from substrate.safety import FileSnapshot, journal, read_text_snapshot, unlinked_folder
from substrate.sessions import SessionLog

BACKUPS = ("profile", "backups")


@dataclass
class ProfileErased:
    """`promotions`: records erased; `withdrawn`: records whose evidence fell
    short (line out, record dropped); `reactivated`: records active again;
    `candidates`: candidates erased; `files`: profile files changed."""

    promotions: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    reactivated: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # tombstones


class _Change:
    """One profile change being planned: the stores, the files, the tombstones."""

    def __init__(self, settings: Settings, order: Order) -> None:
        self.settings = settings
        self.order = order
        ws = settings.workspace
        self.promotions = PromotionStore.load(ws)
        self.curation = CurationStore.load(ws)
        self.edits = Edits(settings)
        self.done = ProfileErased()
        self.lines: set[str] = set()  # line contents taken out (for the backups)

    def tombstone(self, kind: str, words: str, **more: Any) -> None:
        stamp = {"at": self.order.at, "via": self.order.via, "order": self.order.id}
        print_ = {"fingerprint": fingerprint(self.settings.workspace, words)} if words else {}
        self.done.rows.append({"kind": kind, **more, **print_, **stamp})

    def take_line(self, name: str, content: str) -> None:
        text = self.edits.text(name)
        after = without_bullet(text, content)
        if after != text:
            self.edits.set(name, after)
            if self.curation.written.get(name) == sha256(text):
                self.curation.written[name] = sha256(after)  # undo still sees its own write
            self.done.files.append(name)
        self.lines.add(content)

    def erase_promotion(self, record: PromotionRecord, forgotten: bool) -> None:
        """Out of the store and its file; `forgotten`: the person's forget (a
        tombstone), else evidence that fell short (none)."""
        if record.status == ACTIVE:
            self.take_line(file_for(record.kind), record.content)
            self._reactivate_replaced(record)
        self.promotions.erase(record)
        if forgotten:
            self.tombstone("promotion", record.key, id=record.id)
            self.done.promotions.append(record.id)
        else:
            self.done.withdrawn.append(record.id)

    def _reactivate_replaced(self, record: PromotionRecord) -> None:
        for old in list(self.promotions.records.values()):
            if old.status != SUPERSEDED or old.superseded_by != record.id:
                continue
            name = file_for(old.kind)
            text = self.edits.text(name)
            new = with_bullet(name, text, old.content)
            try:
                check_profile_text(
                    self.settings, name, new, f"- {old.content}", "user", confirmed=True
                )
            except (InvalidInputError, MemoryServiceError):
                continue  # no room, or no longer admissible: it stays replaced
            self.edits.set(name, new)
            old.status, old.superseded_by = ACTIVE, None
            self.done.reactivated.append(old.id)

    def erase_candidate(self, candidate: Candidate) -> None:
        op = candidate.operation
        if candidate.status == "applied" and op is not None:
            self.take_line(op.file, op.line[2:])
        self.curation.candidates = [c for c in self.curation.candidates if c is not candidate]
        self.tombstone("candidate", str(candidate.fact.get("text", "")), id=candidate.id)
        self.done.candidates.append(candidate.id)

    def steps(self) -> list[journal.Step]:
        ws = self.settings.workspace
        steps: list[journal.Step] = []
        if self.promotions.records or _exists(self.promotions.snapshot):
            steps.append(self.promotions.step())
        if self.curation.candidates or self.curation.runs or _exists(self.curation.snapshot):
            steps.append(self.curation.step())
        steps += self.edits.steps()
        steps += _backup_steps(self.settings, self.lines)
        grave = tombstone_step(ws, self.order.id, "profile", self.order.at, self.done.rows)
        return steps + ([grave] if grave is not None else [])


def erase_profile(
    settings: Settings,
    log: SessionLog,
    order: Order,
    touched: Collection[str] = (),
    gone: Collection[int] = (),
) -> ProfileErased:
    """What `order` takes out of the profile, and what the forgotten messages
    `gone` (of the sessions `touched`) took support from."""
    lost, sessions = set(gone), set(touched)
    with profile_lease(settings.workspace):
        change = _Change(settings, order)
        for line in order.lines:
            _erase_line(change, line)
        for record in list(change.promotions.records.values()):
            if record.id in order.promotions:
                change.erase_promotion(record, forgotten=True)
            elif sessions.intersection(record.evidence_sessions):
                _derive_again(change, log, record, sessions, lost)
        for candidate in list(change.curation.candidates):
            if candidate.id in order.candidates:
                change.erase_candidate(candidate)
            elif lost:
                _without_evidence(change, candidate, lost)
        for run in change.curation.runs:
            run.message_ids = [m for m in run.message_ids if m not in lost]
        steps = [step for step in change.steps() if _changes(step)]
        if steps:
            commit_profile(settings.workspace, steps)
            change.curation.committed()
            change.promotions.committed()
        return change.done


def _erase_line(change: _Change, line: str) -> None:
    content = " ".join(line.removeprefix("- ").split())
    if not content:
        return
    for name in WRITABLE:
        if f"- {content}" in change.edits.text(name).splitlines():
            change.take_line(name, content)
            change.tombstone("line", content, file=name)
    for record in list(change.promotions.records.values()):
        if normalized(record.content) == normalized(content):
            change.erase_promotion(record, forgotten=True)
    for candidate in list(change.curation.candidates):
        op = candidate.operation
        if (op is not None and normalized(op.line[2:]) == normalized(content)) or normalized(
            str(candidate.fact.get("text", ""))
        ) == normalized(content):
            change.erase_candidate(candidate)
    change.lines.add(content)


def _derive_again(
    change: _Change, log: SessionLog, record: PromotionRecord, sessions: set[str], lost: set[int]
) -> None:
    """The record's evidence as the log now holds it; below the threshold, it goes."""
    evidence: dict[str, list[int]] = {}
    for session in record.evidence_sessions:
        if session not in sessions:
            evidence[session] = record.evidence_messages.get(session, [])
            continue
        said = _restating(log, record, session, lost)
        if said:
            evidence[session] = said
    if len(evidence) >= EVIDENCE_SESSIONS + 1:
        record.evidence_sessions = sorted(evidence)
        record.evidence_messages = {s: ids for s, ids in sorted(evidence.items()) if ids}
        return
    change.erase_promotion(record, forgotten=False)


def _restating(log: SessionLog, record: PromotionRecord, session: str, lost: set[int]) -> list[int]:
    """The direct user messages of `session` (not forgotten) that state the
    record's content again (the detector rerun, as promotion's evidence is found)."""
    out = []
    for message in log.messages(session):
        if message.role != "user" or not message.direct or message.id in lost:
            continue
        for candidate in extract_candidates(message.text).candidates:
            found = detect(candidate.text)
            if found is not None and found.key == record.key:
                out.append(message.id)
                break
    return out


def _without_evidence(change: _Change, candidate: Candidate, lost: set[int]) -> None:
    evidence = candidate.fact.get("evidence", [])
    if not isinstance(evidence, list):
        return
    kept = [e for e in evidence if not (isinstance(e, dict) and e.get("message_id") in lost)]
    if len(kept) == len(evidence):
        return
    if not kept:
        change.erase_candidate(candidate)
        return
    candidate.fact = {**candidate.fact, "evidence": kept}


def _backup_steps(settings: Settings, contents: set[str]) -> list[journal.Step]:
    """The compaction backups without the lines taken out."""
    if not contents:
        return []
    memory = settings.workspace.memory_dir
    folder = memory.joinpath(*BACKUPS)
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False))
    except FileNotFoundError:
        return []
    unlinked_folder(memory, folder)
    steps: list[journal.Step] = []
    for name in names:
        path = folder / name
        text, snapshot = read_text_snapshot(path)
        after = text
        for content in contents:
            after = without_bullet(after, content) if f"- {content}" in after else after
        if after != text:
            steps.append(journal.Replace(path, after.encode("utf-8"), snapshot))
    return steps


def _changes(step: journal.Step) -> bool:
    """Whether a planned step writes anything new (the stores are always
    planned: unchanged, they are no change)."""
    if not isinstance(step, journal.Replace):
        return True
    before, _ = read_text_snapshot(step.path)
    return before.encode("utf-8") != step.data


def _exists(snapshot: FileSnapshot | None) -> bool:
    return snapshot is not None and snapshot.exists
