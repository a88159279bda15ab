"""Writer leases and the fence every durable write passes.

A multi-process service (`memory serve --workspaces DIR --processes N`)
gives each workspace one writing process at a time. That process holds the
workspace's **lease** (`.substrate/writer.lease`: owner, generation, expiry,
the owner's address) and renews it; another process takes the workspace over
only once the lease has expired (or at once when its owner was a process on
this host that no longer exists), with the next **generation**.
A process that was paused (SIGSTOP, a long GC, a swapped-out VM) past its
lease wakes up believing it still owns the workspace: the fence is what stops
it. Every durable write of the substrate (`safe_files.write_atomic`,
`write_many_atomic`, `append_bytes`, the session log's commits) asks
`fenced(path)`, which — for a path inside a workspace this process holds a
lease on — takes the lease file's lock, checks the generation on disk is
still its own, and makes the write while holding that lock. A takeover
needs the same lock, so a write either lands before the new owner's
generation exists or is refused (`FencedError`); no stale write lands after.

A process that registered no lease (the CLI, a single-workspace service) is
not fenced: `fenced` finds no lease for the path and does nothing.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from substrate.errors import FencedError
from substrate.safety.locks import hold_lock

LEASE_FILE = "writer.lease"
LOCK_FILE = "writer.lease.lock"


@dataclass(frozen=True)
class Lease:
    owner: str  # "host:pid:nonce" of the holding process
    generation: int  # +1 at every takeover; the fence compares it
    expires: float  # wall-clock seconds
    url: str  # where the owner answers forwarded requests

    def live(self, now: float | None = None) -> bool:
        return (now if now is not None else time.time()) < self.expires


def lease_path(state_dir: Path) -> Path:
    return state_dir / LEASE_FILE


def read_lease(state_dir: Path) -> Lease | None:
    """The lease on disk; None when there is none or it does not parse (a torn
    write cannot happen: it is replaced whole)."""
    try:
        doc = json.loads(lease_path(state_dir).read_text(encoding="utf-8"))
        owner, url = str(doc["owner"]), str(doc["url"])
        return Lease(owner, int(doc["generation"]), float(doc["expires"]), url)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_lease(state_dir: Path, lease: Lease) -> None:
    path = lease_path(state_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(lease)), encoding="utf-8")
    os.replace(tmp, path)


@contextmanager
def _lease_lock(state_dir: Path, timeout_s: float = 10.0) -> Iterator[None]:
    """The lease's lock; `FileNotFoundError` when the workspace's folder is gone
    (a deleted workspace is never brought back by a process asking for it)."""
    with hold_lock(
        state_dir / LOCK_FILE, timeout_s=timeout_s, purpose="writer lease", make_folder=False
    ):
        yield


class Holder:
    """This process's leases: taken, renewed, given up, and registered with the
    fence under each workspace's root."""

    def __init__(self, owner: str, url: str, lease_s: float) -> None:
        self.owner = owner
        self.url = url
        self.lease_s = lease_s
        self._held: dict[Path, tuple[Path, int]] = {}  # root -> (state dir, generation)
        self._guard = threading.Lock()

    def acquire(self, root: Path, state_dir: Path, timeout_s: float = 10.0) -> Lease:
        """Take the workspace's lease when it is free, expired or already ours
        (renewed then); otherwise the live owner's lease, not taken. An owner
        paused in the middle of a write holds the lease's lock: the takeover
        waits (`LockHeldError` after `timeout_s`) until it wakes, finishes that
        one write — still of the current generation — and is fenced after."""
        with _lease_lock(state_dir, timeout_s):
            now = time.time()
            found = read_lease(state_dir)
            taken = found is not None and found.live(now) and found.owner != self.owner
            if found is not None and taken and not _died_here(found.owner):
                return found
            held = self._held_of(root)
            if held is not None and self._still_mine(found, held[1]):
                generation = held[1]
            else:
                generation = (found.generation if found is not None else 0) + 1
            lease = Lease(self.owner, generation, now + self.lease_s, self.url)
            _write_lease(state_dir, lease)
        with self._guard:
            self._held[root] = (state_dir, generation)
        _register(root, self)
        return lease

    @contextmanager
    def removing(self, root: Path) -> Iterator[None]:
        """Hold the lease's lock of a workspace this process holds while its
        folder is taken away: a process asking for the lease waits, then finds
        the folder gone. The lease is forgotten here afterwards."""
        held = self._held_of(root)
        try:
            if held is None:
                yield
                return
            with _lease_lock(held[0]):
                yield
        finally:
            self.forget(root)

    def renew(self, root: Path) -> bool:
        """Extend the lease; False (and the lease forgotten here) when another
        process took it over."""
        held = self._held_of(root)
        if held is None:
            return False
        state_dir, generation = held
        try:
            with _lease_lock(state_dir):
                if not self._still_mine(read_lease(state_dir), generation):
                    self.forget(root)
                    return False
                expires = time.time() + self.lease_s
                _write_lease(state_dir, Lease(self.owner, generation, expires, self.url))
        except FileNotFoundError:  # its folder was taken away
            self.forget(root)
            return False
        return True

    def release(self, root: Path) -> None:
        """Give the lease up (the workspace closed here): expire it now, so the
        next process to need it need not wait out its time."""
        held = self._held_of(root)
        if held is None:
            return
        state_dir, generation = held
        try:
            with _lease_lock(state_dir):
                if self._still_mine(read_lease(state_dir), generation):
                    _write_lease(state_dir, Lease(self.owner, generation, 0.0, self.url))
        except FileNotFoundError:  # its folder was taken away: nothing to give up
            pass
        self.forget(root)

    def forget(self, root: Path) -> None:
        with self._guard:
            self._held.pop(root, None)
        _unregister(root, self)

    def holds(self, root: Path) -> bool:
        return self._held_of(root) is not None

    def _held_of(self, root: Path) -> tuple[Path, int] | None:
        """(state dir, generation) of the lease this process holds on `root`."""
        with self._guard:
            return self._held.get(root)

    def _still_mine(self, found: Lease | None, generation: int) -> bool:
        """Whether the lease on disk is the one this process took: no other process
        took the workspace over since."""
        return found is not None and found.owner == self.owner and found.generation == generation

    @contextmanager
    def writing(self, root: Path) -> Iterator[None]:
        """Hold the lease lock while a write of `root` lands, if this process
        still holds its lease; else `FencedError`."""
        held = self._held_of(root)
        if held is None:
            raise FencedError(f"{root}: this process no longer holds the workspace's writer lease")
        state_dir, generation = held
        if not state_dir.is_dir():
            raise FencedError(f"{root}: the workspace's folder is gone; the write was refused")
        with _lease_lock(state_dir):
            found = read_lease(state_dir)
            if not self._still_mine(found, generation):
                raise FencedError(
                    f"{root}: another process took the workspace over (generation "
                    f"{found.generation if found else '?'}, this process held {generation}); "
                    "the write was refused"
                )
            yield


def _died_here(owner: str) -> bool:
    """Whether the lease's owner was a process on this host that no longer
    exists (killed, crashed): its lease need not be waited out, it can write
    nothing more. A paused process still exists and keeps its lease."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


_FENCES: dict[Path, Holder] = {}
_FENCES_GUARD = threading.Lock()


def _register(root: Path, holder: Holder) -> None:
    with _FENCES_GUARD:
        _FENCES[Path(os.path.abspath(root))] = holder


def _unregister(root: Path, holder: Holder) -> None:
    with _FENCES_GUARD:
        key = Path(os.path.abspath(root))
        if _FENCES.get(key) is holder:
            del _FENCES[key]


@contextmanager
def fenced(path: Path) -> Iterator[None]:
    """Around one durable write of `path`: checked against the writer lease of
    the workspace it lies in, when this process registered one (module doc)."""
    if not _FENCES:
        yield
        return
    found = None
    with _FENCES_GUARD:
        for parent in Path(os.path.abspath(path)).parents:
            found = _FENCES.get(parent)
            if found is not None:
                root = parent
                break
    if found is None:
        yield
        return
    with found.writing(root):
        yield
