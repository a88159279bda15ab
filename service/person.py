"""The person, as a principal apart from the assistant.

The workspace token (`Authorization: Bearer …`) is the assistant's credential:
every surface an assistant drives holds it (an MCP host, a tool calling the
API). What only the person may do, confirming a parked profile line, takes a
credential the assistant never holds:

- at a terminal, the person key (`.substrate/person.key`, readable by the
  workspace's owner alone): the CLI reads it and sends it as
  `X-Memory-Person`. Whoever can read the workspace's files is its owner.
- in the web tab, a session opened through a one-time link the service prints
  at start (`memory serve`), as notebook servers do: the link's token is
  exchanged once (`POST /v1/person/login`) for an HttpOnly, SameSite=Strict
  cookie and a CSRF token the page sends back as `X-CSRF-Token` with each
  confirmation. A page on another site can neither read the cookie nor know
  the CSRF token; the link works once.

`PersonGate.allows(headers)` says whether a request comes from the person.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from substrate.errors import PersonRequiredError, StaleWriteError
from substrate.safety import read_text_snapshot, write_atomic

KEY_FILE = "person.key"
KEY_CAP = 4096
HEADER = "x-memory-person"
CSRF_HEADER = "x-csrf-token"
COOKIE = "memory_person"
LINK_PARAM = "person"
LINK_S = 24 * 3600.0  # a printed link stays usable this long (once)
SESSION_S = 12 * 3600.0


def person_key(state_dir: Path) -> str:
    """The workspace's person key, made on first use (an owner-only file).

    Two processes starting at once agree on one key: the write refuses when the
    file appeared since it was read, and the loser reads the winner's key."""
    path = state_dir / KEY_FILE
    for _ in range(3):
        text, seen = read_text_snapshot(path, cap=KEY_CAP)
        if text.strip():
            return text.strip()
        key = secrets.token_urlsafe(32)
        try:
            write_atomic(path, key + "\n", seen)  # a new file is created 0o600
        except StaleWriteError:
            continue
        return key
    raise StaleWriteError(f"{path}: the person key keeps changing while it is made")


@dataclass
class _Session:
    csrf: str
    until: float


class PersonGate:
    """The person's credentials for one served workspace (see the module doc)."""

    def __init__(self, state_dir: Path) -> None:
        self._key = person_key(state_dir)
        self._links: dict[str, float] = {}
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._now = time.monotonic

    def login_link(self, base: str) -> str:
        """A one-time link that opens a person session in the web tab."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._links[token] = self._now() + LINK_S
        return f"{base.rstrip('/')}/?{LINK_PARAM}={token}"

    def login(self, token: str) -> tuple[str, str]:
        """(session id for the cookie, CSRF token) for a link's token, once."""
        with self._lock:
            until = self._links.pop(token, None)
            if until is None or until < self._now():
                raise PersonRequiredError(
                    "this login link was used already or has expired; "
                    "restart `memory serve` for a new one"
                )
            session, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
            self._sessions[session] = _Session(csrf, self._now() + SESSION_S)
        return session, csrf

    def allows(self, headers: dict[str, str], cookie: str | None) -> bool:
        """Whether the request carries the person key, or a live person session
        with its CSRF token."""
        given = headers.get(HEADER, "")
        if given and hmac.compare_digest(given.encode(), self._key.encode()):
            return True
        if not cookie:
            return False
        with self._lock:
            session = self._sessions.get(cookie)
        if session is None or session.until < self._now():
            return False
        sent = headers.get(CSRF_HEADER, "")
        return bool(sent) and hmac.compare_digest(sent.encode(), session.csrf.encode())

    def require(self, headers: dict[str, str], cookie: str | None, what: str) -> None:
        if not self.allows(headers, cookie):
            raise PersonRequiredError(
                f"{what} is the person's to do, not the assistant's: do it at a terminal "
                "(`memory profile confirm ID`), or in the web tab opened through the link "
                "`memory serve` printed (`memory person link` prints a new one)"
            )
