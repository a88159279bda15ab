"""An approximate (HNSW) graph for a big embedded index, built off the request path.

Exact search grows with the collection (1.74x from 10,000 to 100,000 pages),
and a graph makes it flat, but building one holds the interpreter lock for
minutes (555 s at 100,000 pages on 2 cores): the serving process would stop.
One process owns an open shard, so the graph is built in a shard of its own:

1. `begin_approximate`: the live points (vectors as stored, nothing
   re-embedded) are copied into a new shard folder beside the live one, made
   with the graph's configuration, and from then on every write to the live
   shard is noted by page;
2. `build_in_child`: a child process loads that folder and builds the graph
   (`optimize`), on its own interpreter;
3. `finish_approximate`: the pages written meanwhile are copied again from
   the live shard, and the folders are swapped while searches wait a moment
   (the store's gate).

Meanwhile the exact scan answers. A search of an approximate shard asks the
graph for `EF_SEARCH` candidates per signal (more than any card fetches), and
their scores are the exact cosines of the stored vectors (with int8
quantization, rescored from the full vectors as before).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

APPROX_FROM_POINTS = 50_000  # chunks: about 40,000 pages of notes
HNSW_M = 16
EF_CONSTRUCT = 100
EF_SEARCH = 256
FULL_SCAN_KB = 1_000  # a segment smaller than this is scanned, graph or not
MARK = "approximate.json"
BUILD_TIMEOUT_S = 3 * 3600.0
POLL_S = 0.2


def graph_config(qe: Any, approximate: bool) -> Any:
    """The shard's HNSW setting: none (exact scan) or the graph."""
    if not approximate:
        return qe.HnswIndexConfig(m=0, ef_construct=EF_CONSTRUCT, full_scan_threshold=10_000)
    return qe.HnswIndexConfig(m=HNSW_M, ef_construct=EF_CONSTRUCT, full_scan_threshold=FULL_SCAN_KB)


def is_approximate(folder: Path) -> bool:
    return (folder / MARK).exists()


def build_in_child(
    folder: Path, stop: threading.Event | None = None, timeout_s: float = BUILD_TIMEOUT_S
) -> None:
    """Build the graph of the shard at `folder` in a child process (it owns the
    folder meanwhile); raises when the child fails, times out or `stop` is set
    (the child is killed then)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "substrate.index.approximate", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + timeout_s
    try:
        while child.poll() is None:
            if (stop is not None and stop.is_set()) or time.monotonic() > deadline:
                raise RuntimeError("the graph build was stopped")
            time.sleep(POLL_S)
        said = child.stderr.read() if child.stderr is not None else ""
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stderr is not None:
            child.stderr.close()
    if child.returncode != 0:
        raise RuntimeError(f"the graph build failed ({child.returncode}): {said[-500:]}")


def _build(folder: Path) -> None:
    import qdrant_edge as qe

    shard = qe.EdgeShard.load(str(folder))
    try:
        shard.optimize()
        shard.flush()
    finally:
        shard.close()


class Approximating:
    """EdgeStore's part that builds and swaps in the graph (see the module doc).
    It uses the store's shard, gate, folder and point map."""

    _qe: Any
    _path: Path
    _shard: Any
    _gate: Any
    _points: Any
    _changed: set[str] | None
    # The store's own, used here:
    count: Callable[[], int]
    _config: Callable[..., Any]
    _dims: Callable[[], dict[str, int]]
    _indexed_fields: Callable[[Any], None]
    _copy_into: Callable[..., None]
    _slug_filter: Callable[[list[str]], Any]

    @property
    def approximate(self) -> bool:
        """Whether the live shard searches through a graph."""
        return is_approximate(self._path)

    def wants_approximate(self) -> bool:
        """Big enough for a graph, and none yet."""
        return (
            not self.approximate and self._shard is not None and self.count() >= APPROX_FROM_POINTS
        )

    def _note(self, slugs: list[str]) -> None:
        """A write to the live shard while a graph is built: copied again at the swap."""
        changed = self._changed
        if changed is not None:
            changed.update(slugs)

    def begin_approximate(self) -> Path:
        """The live points copied into a new shard with the graph's configuration
        (searches and writes go on meanwhile; writes are noted). Returns its folder,
        for `build_in_child`."""
        qe = self._qe
        fresh = self._path.with_name(self._path.name + ".approx")
        shutil.rmtree(fresh, ignore_errors=True)
        with self._gate.shared():
            self._changed = set()
            self._shard.flush()
            shard = qe.EdgeShard.create(str(fresh), self._config(self._dims(), approximate=True))
            try:
                self._indexed_fields(shard)
                self._copy_into(shard)
                shard.flush()
            finally:
                shard.close()
        (fresh / MARK).write_text(json.dumps({"hnsw_m": HNSW_M, "ef_construct": EF_CONSTRUCT}))
        return fresh

    def finish_approximate(self, fresh: Path) -> int:
        """Swap in the built shard, with the pages written since `begin` copied
        again; how many pages that was. Call with the index's writes held off."""
        qe = self._qe
        old = self._path.with_name(self._path.name + ".exact")
        shutil.rmtree(old, ignore_errors=True)
        with self._gate.exclusive():
            changed = sorted(self._changed or ())
            self._changed = None
            shard = qe.EdgeShard.load(str(fresh))
            try:
                if changed:
                    shard.update(
                        qe.UpdateOperation.delete_points_by_filter(self._slug_filter(changed))
                    )
                    self._copy_into(shard, self._slug_filter(changed))
                shard.flush()
            finally:
                shard.close()
            self._shard.close()
            self._shard = None
            self._path.rename(old)
            fresh.rename(self._path)
            self._shard = qe.EdgeShard.load(str(self._path))
            self._points = None
        shutil.rmtree(old, ignore_errors=True)
        return len(changed)

    def abandon_approximate(self, fresh: Path) -> None:
        self._changed = None
        shutil.rmtree(fresh, ignore_errors=True)

    def search_params(self, quantization: Any) -> Any:
        """What a dense query asks of the shard: the graph's candidates, rescored."""
        if not self.approximate:
            return (
                None if quantization is None else self._qe.SearchParams(quantization=quantization)
            )
        return self._qe.SearchParams(hnsw_ef=EF_SEARCH, quantization=quantization)


if __name__ == "__main__":
    _build(Path(sys.argv[1]))
