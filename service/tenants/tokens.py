"""Owns `.substrate/service-token`: the bearer token that opens one workspace
of a multi-workspace service.

The token lives in the workspace itself, so a folder made with `memory init`
under the served directory is served with its own token and nothing else,
and moving the folder moves its key. Written atomically with owner-only
permissions from the first byte (the temporary file is made 0600, then
renamed over), never logged. A file that is missing, unreadable or not a
token opens nothing.
"""

from __future__ import annotations

import atexit
import hmac
import secrets
import shutil
from pathlib import Path

from substrate import InvalidInputError, Workspace
from substrate.safety.safe_files import read_regular_file, write_atomic

TOKEN_FILE = "service-token"
TOKEN_BYTES = 32
TOKEN_FILE_BYTES = 1024
_HEX = frozenset("0123456789abcdef")


def token_path(ws: Workspace) -> Path:
    return ws.state_dir / TOKEN_FILE


def read_token(ws: Workspace) -> str | None:
    """The workspace's token, or None when it has none (or an unreadable one)."""
    try:
        text = read_regular_file(token_path(ws), TOKEN_FILE_BYTES).decode("ascii").strip()
    except (OSError, UnicodeDecodeError, InvalidInputError):
        return None
    return text if len(text) == 2 * TOKEN_BYTES and set(text) <= _HEX else None


def workspace_token(ws: Workspace, rotate: bool = False) -> tuple[str, bool]:
    """(the workspace's token, whether it was made now): the one it has, or a
    new one when it has none or `rotate` (the old one stops opening it at once)."""
    current = None if rotate else read_token(ws)
    if current is not None:
        return current, False
    token = secrets.token_hex(TOKEN_BYTES)
    write_atomic(token_path(ws), token + "\n")  # its temp file is the owner's alone (0600)
    return token, True


def opens(ws: Workspace, given: str | None) -> bool:
    """Whether `given` (the request's bearer token) is this workspace's token,
    compared in constant time (a missing token is compared with a stand-in,
    so the work is the same)."""
    expected = read_token(ws)
    same = hmac.compare_digest((given or "").encode(), (expected or STAND_IN).encode())
    return same and expected is not None and given is not None


STAND_IN = "0" * (2 * TOKEN_BYTES)


def decoy_workspace(folder: Path) -> Workspace:
    """A workspace-shaped folder holding a token nobody has: what a request for a
    workspace that does not exist is checked against, so it takes the path a
    wrong token for a real one takes (the same file read, hash and compare)."""
    ws = Workspace(folder)
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    workspace_token(ws)
    atexit.register(shutil.rmtree, folder, True)
    return ws
