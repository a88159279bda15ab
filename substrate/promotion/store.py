"""`promotions.json`: every promotion ever made, one record per content key.

`{"version": 1, "records": [...]}`, written sorted by content, drift-aware.
The store changes records in memory and keeps the previous map, so a refused
change puts everything back (`rollback`). A change that also writes a profile
file goes out as one journaled commit with it (`step`, `committed`); one that
changes only the records is a plain `flush`."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError, NotFoundError
from substrate.promotion.categories import conflicts
from substrate.promotion.detect import PREFERENCE, Detection, content_key
from substrate.safety import FileSnapshot, journal, read_text_snapshot, write_atomic

VERSION = 1
ACTIVE, SUPERSEDED, FORGOTTEN = "active", "superseded", "forgotten"


@dataclass
class PromotionRecord:
    id: str
    content: str
    kind: str
    status: str
    evidence_sessions: list[str]
    created: float
    updated: float
    strengthened: int = 0
    superseded_by: str | None = None
    forgotten_at: float | None = None
    # session id -> the messages in it that state this again (its lineage: a
    # forget of one of them derives the record again from what stays)
    evidence_messages: dict[str, list[int]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return content_key(self.content)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Change:
    """What `apply` did: `action` create / strengthen / supersede / reactivate."""

    action: str
    record: PromotionRecord
    replaced: PromotionRecord | None = None


def _merged(old: dict[str, list[int]], new: dict[str, list[int]]) -> dict[str, list[int]]:
    out = {s: list(ids) for s, ids in old.items()}
    for session, ids in new.items():
        out[session] = sorted({*out.get(session, []), *ids})
    return dict(sorted(out.items()))


def promotions_path(workspace: Workspace) -> Path:
    return workspace.memory_dir / "profile" / "promotions.json"


def record_id(key: str) -> str:
    return "p-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


@dataclass
class PromotionStore:
    path: Path
    records: dict[str, PromotionRecord] = field(default_factory=dict)  # by key
    snapshot: FileSnapshot | None = None
    _before: dict[str, PromotionRecord] | None = None

    @classmethod
    def load(cls, workspace: Workspace) -> PromotionStore:
        path = promotions_path(workspace)
        text, snap = read_text_snapshot(path)
        store = cls(path, {}, snap)
        if not text.strip():
            return store
        try:
            doc = json.loads(text)
            if doc.get("version") != VERSION or not isinstance(doc.get("records"), list):
                raise ValueError(f"expected version {VERSION} and a records list")
            for raw in doc["records"]:
                record = PromotionRecord(**raw)
                store.records[record.key] = record  # normalised by content key
        except (ValueError, TypeError) as exc:
            raise InvalidInputError(f"{path}: not a promotions file ({exc})") from None
        return store

    def find(self, key: str) -> PromotionRecord | None:
        return self.records.get(key)

    def by_id(self, promotion_id: str) -> PromotionRecord:
        for record in self.records.values():
            if record.id == promotion_id:
                return record
        raise NotFoundError(f"no promotion {promotion_id!r} (see `memory promotions`)")

    def active(self) -> list[PromotionRecord]:
        return sorted(
            (r for r in self.records.values() if r.status == ACTIVE), key=lambda r: r.content
        )

    def _keep(self) -> None:
        if self._before is None:
            self._before = copy.deepcopy(self.records)

    def apply(
        self,
        found: Detection,
        evidence: list[str],
        now: float,
        messages: dict[str, list[int]] | None = None,
    ) -> Change:
        """Create, strengthen, reactivate, or (a preference in the category of an
        active one) supersede it. `messages`: the evidence messages, by session."""
        self._keep()
        record = self.records.get(found.key)
        if record is not None and record.status == ACTIVE:
            record.evidence_sessions = sorted({*record.evidence_sessions, *evidence})
            record.evidence_messages = _merged(record.evidence_messages, messages or {})
            record.strengthened += 1
            record.updated = now
            return Change("strengthen", record)
        replaced = self._conflicting(found) if found.kind == PREFERENCE else None
        if record is None:
            record = PromotionRecord(
                record_id(found.key), found.content, found.kind, ACTIVE, sorted(evidence), now, now
            )
            record.evidence_messages = _merged({}, messages or {})
            self.records[found.key] = record
            action = "create"
        else:
            record.status, record.superseded_by, record.updated = ACTIVE, None, now
            record.evidence_sessions = sorted({*record.evidence_sessions, *evidence})
            record.evidence_messages = _merged(record.evidence_messages, messages or {})
            action = "reactivate"
        if replaced is not None:
            replaced.status, replaced.superseded_by, replaced.updated = SUPERSEDED, record.id, now
            action = "supersede"
        return Change(action, record, replaced)

    def _conflicting(self, found: Detection) -> PromotionRecord | None:
        for record in self.records.values():
            if (
                record.status == ACTIVE
                and record.kind == PREFERENCE
                and conflicts(found.key, record.key)
            ):
                return record
        return None

    def forget(self, promotion_id: str, now: float) -> PromotionRecord:
        record = self.by_id(promotion_id)
        if record.status != ACTIVE:
            raise InvalidInputError(f"promotion {promotion_id} is {record.status}, not active")
        self._keep()
        record.status, record.forgotten_at, record.updated = FORGOTTEN, now, now
        return record

    def erase(self, record: PromotionRecord) -> None:
        """The record goes whole (a forget keeps no words of it: its tombstone
        remembers it instead)."""
        self._keep()
        self.records.pop(record.key, None)

    def render(self) -> str:
        doc = {
            "version": VERSION,
            "records": [
                r.as_json() for r in sorted(self.records.values(), key=lambda r: r.content)
            ],
        }
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    def step(self) -> journal.Replace:
        """The records as they are now, as one step of a journaled commit."""
        assert self.snapshot is not None
        return journal.Replace(self.path, self.render().encode("utf-8"), self.snapshot)

    def flush(self) -> None:
        """Write the records alone; on failure the in-memory records roll back."""
        try:
            write_atomic(self.path, self.render(), self.snapshot)
        except BaseException:
            self.rollback()
            raise
        self.committed()

    def committed(self) -> None:
        """The records on disk are these now (after `flush` or a commit of `step`)."""
        self._before = None
        self.snapshot = read_text_snapshot(self.path)[1]

    def rollback(self) -> None:
        """Back to the records as loaded (or last committed)."""
        if self._before is not None:
            self.records = self._before
            self._before = None
