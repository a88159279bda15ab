"""`memory/profile/memory-curation.json`: every curation run and candidate.

Runs: id, trigger, session, source message ids and count, status, reasons.
Candidates: id, the fact, its disposition and reason, its status (applied,
pending, rejected, ignored, undone) and, for one that was or may be applied,
the reversible operation: the file, the line, and the file's hash after the
line went in (undo refuses when the file changed since). No transcript text
beyond the fact and its evidence spans is kept."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError, NotFoundError
from substrate.safety import FileSnapshot, journal, read_text_snapshot, write_atomic

VERSION = 1
KEEP_RUNS = 1000


@dataclass
class Operation:
    file: str
    line: str
    after_sha256: str | None = None  # the file right after the line went in


@dataclass
class Candidate:
    id: str
    run: str
    fact: dict[str, Any]
    disposition: str
    reason: str
    status: str  # applied / pending / rejected / ignored / undone
    operation: Operation | None
    at: float

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["text"] = self.fact["text"]
        out["target"] = self.fact["target"]
        return out


@dataclass
class Run:
    id: str
    trigger: str
    session: str | None
    message_ids: list[int]
    status: str
    reasons: list[str]
    at: float


@dataclass
class CurationStore:
    path: Path
    runs: list[Run] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    # each profile file's hash after curation last wrote it: an undo is refused
    # when the file no longer matches (someone else changed it since)
    written: dict[str, str] = field(default_factory=dict)
    snapshot: FileSnapshot | None = None

    @classmethod
    def load(cls, workspace: Workspace) -> CurationStore:
        path = curation_path(workspace)
        text, snapshot = read_text_snapshot(path)
        store = cls(path, snapshot=snapshot)
        if not text.strip():
            return store
        try:
            doc = json.loads(text)
            if doc.get("version") != VERSION:
                raise ValueError(f"expected version {VERSION}")
            store.runs = [Run(**r) for r in doc.get("runs", [])]
            store.written = dict(doc.get("written", {}))
            for raw in doc.get("candidates", []):
                op = raw.pop("operation", None)
                store.candidates.append(Candidate(**raw, operation=Operation(**op) if op else None))
        except (ValueError, TypeError) as exc:
            raise InvalidInputError(f"{path}: not a curation file ({exc})") from None
        return store

    def get(self, candidate_id: str) -> Candidate:
        for c in self.candidates:
            if c.id == candidate_id:
                return c
        raise NotFoundError(f"no curation candidate {candidate_id!r} (see `memory review`)")

    def add_run(self, run: Run) -> None:
        self.runs.append(run)
        self.runs = self.runs[-KEEP_RUNS:]

    def render(self) -> str:
        doc = {
            "version": VERSION,
            "runs": [asdict(r) for r in self.runs],
            "candidates": [asdict(c) for c in self.candidates],
            "written": self.written,
        }
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    def step(self) -> journal.Replace:
        """The store as it is now, as one step of a journaled commit."""
        assert self.snapshot is not None
        return journal.Replace(self.path, self.render().encode("utf-8"), self.snapshot)

    def flush(self) -> None:
        """Write the store alone (drift-aware against the file it was loaded from)."""
        write_atomic(self.path, self.render(), self.snapshot)
        self.committed()

    def committed(self) -> None:
        self.snapshot = read_text_snapshot(self.path)[1]


def curation_path(workspace: Workspace) -> Path:
    return workspace.memory_dir / "profile" / "memory-curation.json"


def candidate_id(run: str, index: int, text: str) -> str:
    digest = hashlib.sha256(f"{run}\0{index}\0{text}".encode()).hexdigest()[:10]
    return f"c-{digest}"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
