"""What `/healthz` says of a served workspace's index (`index`): `building` until
the boot maintenance has indexed the pages, `ok`, or `degraded: <why>` from the
moment a store error is met until the rebuild that heals it finishes.

Also the bounded wait of a first read: a workspace opened by its first request
(`serve --workspaces`) would otherwise search an index that has not seen the
pages written into its folder before the service started.
"""

from __future__ import annotations

import threading

BUILDING, OK = "building", "ok"
DEGRADED = "degraded: "
FIRST_READ_WAIT_S = 10.0


class IndexHealth:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = BUILDING
        self._booted = threading.Event()
        self._waiting = False  # a boot maintenance was queued (the service started)

    @property
    def state(self) -> str:
        with self._lock:
            return self._state

    @property
    def degraded(self) -> bool:
        return self.state.startswith(DEGRADED)

    @property
    def reads_wait(self) -> bool:
        """Whether a read now would wait for the boot maintenance."""
        return self._waiting and not self._booted.is_set()

    def boot_queued(self) -> None:
        self._waiting = True

    def indexed(self) -> None:
        """A maintain finished: the index holds the pages (a degraded mark, set by
        an error met meanwhile, stays until a rebuild clears it)."""
        with self._lock:
            if self._state == BUILDING:
                self._state = OK
        self._booted.set()

    def boot_failed(self) -> None:
        """The boot maintenance did not finish: reads wait for it no longer."""
        self._booted.set()

    def damaged(self, why: str) -> bool:
        """Mark the index degraded; True when it was not already (a rebuild is due)."""
        with self._lock:
            first = not self._state.startswith(DEGRADED)
            self._state = DEGRADED + why
        return first

    def healed(self) -> None:
        with self._lock:
            self._state = OK
        self._booted.set()

    def wait_for_boot(self, timeout_s: float = FIRST_READ_WAIT_S) -> None:
        """A read before the boot maintenance finished waits for it (bounded)."""
        if self._waiting and not self._booted.is_set():
            self._booted.wait(timeout_s)
