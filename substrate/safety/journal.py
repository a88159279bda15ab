"""Changes that span files and must land together: a journal that rolls forward.

A fact goes into the buffer and its day's archive; a promotion changes
`promotions.json` and `USER.md`. Each file is written atomically, but a kill
between the two writes would leave them disagreeing for good (an active
record whose line never reached the profile, a fact in the buffer the
archive never saw). So such a change is written as a journal first: one
small file, fsynced, naming every step and the bytes it writes. Then the
steps run, then the journal goes. A kill anywhere leaves either no journal
(nothing happened, or everything did) or a journal that the next writer under
the same lock finishes (`recover`), each step idempotent against what it
finds on disk:

- `Replace(path, data, expected)`: the file becomes `data`. Recovery writes it
  when the file still holds what the plan saw; a file that already holds
  `data` is done; a file someone changed since is left alone (and reported).
- `Append(path, data)`: `data` goes at the end. Recovery knows the size the
  file had, so it appends what is missing and never twice.
- `Rename(source, target)`: the file moves. Recovery renames it when it is
  still at `source` and `target` is free; found at `target`, it is done.
- `Remove(path, expected)`: the file goes (a forgotten session's transcript).
  Recovery removes it when it still holds what the plan saw; absent, it is
  done; changed since, it is left (and reported).

A change that must also update something the journal cannot hold (a derived
database) commits with `then`: the journal stays after its steps until `then`
(the update) returned, so a kill in between leaves a journal that the next
writer rolls forward and derives from again (`recover(keep=True)`, then
`discard`); an error in `then` undoes the steps, like any other error.

An error that is not a kill (a full disk, a drifted file) undoes the steps
already taken, so the call leaves every file as it was; only when the undo
itself fails is the journal kept, to be rolled forward.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError
from substrate.safety.safe_files import (
    FileSnapshot,
    append_bytes,
    check_same,
    fsync_dir,
    read_bytes_snapshot,
    read_regular_file,
    write_atomic,
)

VERSION = 1
MAX_JOURNAL_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Replace:
    path: Path
    data: bytes
    expected: FileSnapshot


@dataclass(frozen=True)
class Append:
    path: Path
    data: bytes


@dataclass(frozen=True)
class Rename:
    """`source` becomes `target` (a page moved, deleted into the trash, restored)."""

    source: Path
    target: Path

    @property
    def path(self) -> Path:
        return self.target

    @property
    def data(self) -> bytes:
        return b""


@dataclass(frozen=True)
class Remove:
    path: Path
    expected: FileSnapshot

    @property
    def data(self) -> bytes:
        return b""


Step = Replace | Append | Rename | Remove


@dataclass(frozen=True)
class _Planned:
    """A step as the journal records it, with what undoing it needs."""

    step: Step
    before: bytes | None  # Replace: the file as the plan saw it (None: absent)
    size: int  # Append: the file's size before


def commit(
    journal: Path, steps: Sequence[Step], *, then: Callable[[], object] | None = None
) -> None:
    """Run `steps` so that they all land or none does (see the module doc).
    Call under the lock that guards every file the steps touch, after
    `recover` on the same journal. `then`: what must follow the steps before
    the journal may go (a derived database brought up to them)."""
    planned = [_plan(step) for step in steps]
    _write_journal(journal, planned)
    done: list[_Planned] = []
    try:
        for item in planned:
            _run(item)
            done.append(item)
        if then is not None:
            then()
    except BaseException:
        if _undo(done):
            _remove(journal)
        raise
    _remove(journal)


def discard(journal: Path) -> None:
    """A kept journal whose caller finished: it goes."""
    _remove(journal)


def recover(journal: Path, *, keep: bool = False) -> list[str]:
    """Finish a change a killed writer left in `journal`; one line per step that
    could not be finished (a file someone changed since). Call under the lock.
    `keep`: the journal stays for the caller to `discard` once it derived again."""
    try:
        steps = list(_steps(json.loads(read_regular_file(journal, MAX_JOURNAL_BYTES)), journal))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError, InvalidInputError):
        _remove(journal)  # a journal is written atomically: this one is not ours
        return [f"{journal}: an unfinished journal that does not parse was dropped"]
    skipped = []
    for item in steps:
        problem = _finish(item)
        if problem is not None:
            skipped.append(problem)
    if not keep:
        _remove(journal)
    return skipped


def pending(journal: Path) -> list[str] | None:
    """The files of a change left unfinished here (what `memory doctor` reports),
    or None when there is none; a journal that does not parse names itself."""
    try:
        doc = json.loads(read_regular_file(journal, MAX_JOURNAL_BYTES))
        return [str(item.step.path) for item in _steps(doc, journal)]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, InvalidInputError):
        return [str(journal)]


def _plan(step: Step) -> _Planned:
    if isinstance(step, Rename):
        if not step.source.is_file() or step.source.is_symlink():
            raise InvalidInputError(f"{step.source}: not a regular file; nothing was moved")
        if step.target.exists() or step.target.is_symlink():
            raise InvalidInputError(f"{step.target}: exists; nothing was moved")
        return _Planned(step, None, 0)
    if isinstance(step, Replace | Remove):
        before, now = read_bytes_snapshot(step.path)
        check_same(step.expected, now.sha256)
        return _Planned(step, before, 0)
    try:
        size = step.path.stat().st_size
    except FileNotFoundError:
        size = 0
    return _Planned(step, None, size)


def _run(item: _Planned) -> None:
    step = item.step
    if isinstance(step, Rename):
        _rename(step.source, step.target)
    elif isinstance(step, Replace):
        write_atomic(step.path, step.data, step.expected)
    elif isinstance(step, Remove):
        _unlink(step.path)
    else:
        append_bytes(step.path, step.data)


def _undo(done: list[_Planned]) -> bool:
    """Put back what the finished steps changed, newest first; False when a file
    could not be put back (the journal then stays, to roll forward)."""
    try:
        for item in reversed(done):
            step = item.step
            if isinstance(step, Rename):
                _rename(step.target, step.source)
            elif isinstance(step, Replace | Remove):
                if item.before is None:
                    step.path.unlink(missing_ok=True)
                else:
                    write_atomic(step.path, item.before)
            else:
                os.truncate(step.path, item.size)
    except OSError:
        return False
    return True


def _finish(item: _Planned) -> str | None:
    step = item.step
    if isinstance(step, Rename):
        there, here = step.target.exists(), step.source.exists()
        if there and not here:
            return None
        if here and not there:
            _rename(step.source, step.target)
            return None
        return f"{step.source} -> {step.target}: both or neither exist; left as they are"
    data, snap = read_bytes_snapshot(step.path)
    if isinstance(step, Remove):
        if data is None:
            return None
        if snap.sha256 != step.expected.sha256:
            return f"{step.path}: changed since an unfinished removal planned it; left as it is"
        _unlink(step.path)
        return None
    if isinstance(step, Replace):
        if data == step.data:
            return None
        if snap.sha256 != step.expected.sha256:
            return f"{step.path}: changed since an unfinished write planned it; left as it is"
        write_atomic(step.path, step.data, snap)
        return None
    held = data or b""
    end = item.size + len(step.data)
    if len(held) >= end and held[item.size : end] == step.data:
        return None  # landed
    tail = held[item.size :]
    if len(held) < item.size or not step.data.startswith(tail):
        return f"{step.path}: changed since an unfinished append; left as it is"
    append_bytes(step.path, step.data[len(tail) :])  # the rest of a torn append
    return None


def _write_journal(journal: Path, planned: list[_Planned]) -> None:
    doc = {"version": VERSION, "steps": [_encoded(item) for item in planned]}
    write_atomic(journal, json.dumps(doc, separators=(",", ":")))


def _encoded(item: _Planned) -> dict[str, Any]:
    step = item.step
    out: dict[str, Any] = {"path": str(step.path), "data": _b64(step.data)}
    if isinstance(step, Rename):
        out |= {"kind": "rename", "source": str(step.source)}
    elif isinstance(step, Replace):
        out |= {"kind": "replace", "expected": step.expected.sha256}
    elif isinstance(step, Remove):
        out |= {"kind": "remove", "expected": step.expected.sha256}
    else:
        out |= {"kind": "append", "size": item.size}
    return out


def _steps(doc: Any, journal: Path) -> Iterator[_Planned]:
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise InvalidInputError(f"{journal}: not a journal of version {VERSION}")
    for raw in doc.get("steps", []):
        path, data = Path(raw["path"]), base64.b64decode(raw["data"])
        if raw["kind"] == "rename":
            yield _Planned(Rename(Path(raw["source"]), path), None, 0)
        elif raw["kind"] == "replace":
            expected = FileSnapshot(path, raw["expected"], 0, 0)
            yield _Planned(Replace(path, data, expected), None, 0)
        elif raw["kind"] == "remove":
            yield _Planned(Remove(path, FileSnapshot(path, raw["expected"], 0, 0)), None, 0)
        else:
            yield _Planned(Append(path, data), None, int(raw["size"]))


def _rename(source: Path, target: Path) -> None:
    """Atomic, durable in both folders; the target's folders are made first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, target)
    fsync_dir(target.parent)
    fsync_dir(source.parent)


def _unlink(path: Path) -> None:
    """Durable: the folder is synced, so the removal survives a machine crash."""
    path.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _remove(journal: Path) -> None:
    """Not fsynced: should a machine crash bring a finished journal back, every
    step of it finds its work done (or the file changed since, and says so)."""
    journal.unlink(missing_ok=True)
