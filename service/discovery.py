"""Finding a running service: `.substrate/service.json` with its URL and pid.

`memory serve` writes the file once it listens and removes it on shutdown.
A file whose pid is not a live process (the service was killed) is stale and
ignored, so a crash never sends the CLI to a dead URL.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
from dataclasses import dataclass
from pathlib import Path

from substrate import InvalidInputError, Workspace, write_atomic
from substrate.safety import read_text_file


@dataclass(frozen=True)
class ServiceInfo:
    url: str
    pid: int


def service_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "service.json"


def announce(workspace: Workspace, url: str) -> None:
    body = json.dumps({"url": url, "pid": os.getpid()})
    write_atomic(service_file(workspace), body, durable=False)


def withdraw(workspace: Workspace) -> None:
    """Remove the file if it is ours (a second service may have replaced it)."""
    found = _read(service_file(workspace))
    if found is not None and found.pid == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            service_file(workspace).unlink()


def running_service(workspace: Workspace) -> ServiceInfo | None:
    """The live service of this workspace, if any (never this process itself)."""
    found = _read(service_file(workspace))
    if found is None or found.pid == os.getpid() or not _alive(found.pid):
        return None
    return found


def stale_service_file(workspace: Workspace) -> ServiceInfo | None:
    """The service file of a process that is gone (killed before it could withdraw)."""
    found = _read(service_file(workspace))
    return found if found is not None and not _alive(found.pid) else None


def _read(path: Path) -> ServiceInfo | None:
    try:
        doc = json.loads(read_text_file(path, 64 * 1024) or "null")
        return ServiceInfo(str(doc["url"]), int(doc["pid"]))
    except (OSError, ValueError, KeyError, TypeError, InvalidInputError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
