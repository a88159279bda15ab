"""The approximate graph of a served workspace's big index, built beside it.

The runtime asks between jobs (`soon`); a store past the graph's threshold
without one gets it on a thread of its own, the graph itself built by a child
process (`substrate.index.approximate`), while the exact scan answers. `state`
is what `/healthz` says as `graph`: none, building, ready, or failed: why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from substrate import MemoryServiceError
from substrate.index import SearchIndex

log = logging.getLogger("memory.service")


class GraphBuild:
    def __init__(
        self,
        search: Callable[[], SearchIndex],
        writes_held: Callable[[], AbstractContextManager[None]],
        stopping: threading.Event,
    ) -> None:
        """`search`: the served index; `writes_held`: no maintain runs while the
        built shard is swapped in; `stopping`: set at shutdown (the child is
        killed)."""
        self._search = search
        self._writes_held = writes_held
        self._stopping = stopping
        self._thread: threading.Thread | None = None
        self.state = "ready" if getattr(search().store, "approximate", False) else "none"

    def soon(self) -> bool:
        """Start a build when the store wants a graph and none is being built;
        returns whether one started."""
        from substrate.index.qdrant_edge import EdgeStore

        store = self._search().store
        busy = self._thread is not None and self._thread.is_alive()
        if busy or not isinstance(store, EdgeStore) or not store.wants_approximate():
            return False
        self.state = "building"
        self._thread = threading.Thread(
            target=self._build, args=(store,), name="graph", daemon=True
        )
        self._thread.start()
        return True

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()  # its child was killed by the stop

    def _build(self, store: Any) -> None:
        from substrate.index.approximate import build_in_child

        started = time.monotonic()
        fresh = store.begin_approximate()
        try:
            build_in_child(fresh, self._stopping)
            with self._writes_held():
                again = store.finish_approximate(fresh)
        except (RuntimeError, OSError, MemoryServiceError) as exc:
            store.abandon_approximate(fresh)
            self.state = f"failed: {exc}"
            log.warning("the index's graph was not built: %s", exc)
            return
        self.state = "ready"
        log.warning(
            "the index's graph is built (%.0f s, %d pages written meanwhile copied again)",
            time.monotonic() - started,
            again,
        )
