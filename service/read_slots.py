"""Cards and searches in flight: bounded, counted, and given way to.

Cards are CPU-bound, so at most `READ_SLOTS` per core run at once (writes
queued behind thirty of them would starve). The count of reads in flight is
what background indexing yields to between its batches: under 24 clients a
worker's embedding competed with every card for the two cores.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from substrate.config import usable_cpus

READ_SLOTS = 1  # concurrent cards and searches per core
YIELD_STEP_S = 0.01  # background indexing pauses this long at a time while requests read
YIELD_MOST_S = 0.25  # and at most this long per batch, so it still gets done


class ReadSlots:
    def __init__(self, per_core: int = READ_SLOTS) -> None:
        self._slots = threading.BoundedSemaphore(per_core * usable_cpus())
        self._lock = threading.Lock()
        self._reading = 0

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A card or a search in flight: counted while it waits for a slot too."""
        with self._lock:
            self._reading += 1
        try:
            with self._slots:
                yield
        finally:
            with self._lock:
                self._reading -= 1

    def give_way(self) -> None:
        """Background work pauses while reads are in flight (bounded)."""
        waited = 0.0
        while self._reading > 0 and waited < YIELD_MOST_S:
            time.sleep(YIELD_STEP_S)
            waited += YIELD_STEP_S
