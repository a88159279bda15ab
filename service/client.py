"""The CLI's way to a running service: JSON over HTTP, errors turned back
into the same `MemoryServiceError`s the library raises (by the body's `code`,
`errors.from_wire`), so a command prints the same line and exits with the same
code whether it ran in-process or against the service."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from substrate.errors import StoreUnavailableError, from_wire

SURFACE_HEADER = "X-Memory-Surface"
IDEMPOTENCY_HEADER = "Idempotency-Key"
RETRIES = 2  # a dropped connection is tried again this many times, with the same key
RETRY_PAUSE_S = 0.5


PERSON_HEADER = "X-Memory-Person"


class ServiceClient:
    def __init__(
        self,
        url: str,
        token: str | None = None,
        timeout_s: float = 900.0,
        person: str | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers[SURFACE_HEADER] = "cli"  # what a forget's tombstone says it came through
        if person:  # the person's key, read from the workspace at a terminal
            headers[PERSON_HEADER] = person
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout_s)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """Sent with an `Idempotency-Key`: a connection dropped after the request
        landed is retried with the same key, and the service answers the retry
        with the first answer instead of doing the write twice."""
        return self._call("POST", path, body, key=uuid.uuid4().hex)

    def get(self, path: str, params: dict[str, str] | None = None) -> Any:
        return self._call("GET", path, None, params)

    def close(self) -> None:
        self._http.close()

    def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        params: dict[str, str] | None = None,
        key: str | None = None,
    ) -> Any:
        headers = {IDEMPOTENCY_HEADER: key} if key else None
        for attempt in range(RETRIES + 1):
            try:
                response = self._http.request(
                    method, path, json=body, params=params, headers=headers
                )
                break
            except httpx.TimeoutException as exc:  # a long write may still run: not retried
                raise StoreUnavailableError(
                    f"the memory service at {self.url} did not answer in time: {exc}"
                ) from None
            except httpx.HTTPError as exc:
                if key is None or attempt == RETRIES:
                    raise StoreUnavailableError(
                        f"cannot reach the memory service at {self.url}: {exc}"
                    ) from None
                time.sleep(RETRY_PAUSE_S)
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.is_success:
            return data
        raise from_wire(response.status_code, data)  # by the body's code: the same class
