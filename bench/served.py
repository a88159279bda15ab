"""A real `memory serve` for the benchmarks that measure the service from outside."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from service.discovery import running_service
from substrate import open_workspace

STARTUP_S = 3600.0  # the first maintain of a large workspace walks every page


def start_service(workspace: Path) -> subprocess.Popen[bytes]:
    memory = str(Path(sys.executable).parent / "memory")
    command = [memory, "serve", "--workspace", str(workspace), "--port", "0"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def wait_until_ready(workspace: Path | None, url: str | None, proc: Any) -> str:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"memory serve exited with {proc.returncode}")
        if url is None and workspace is not None:
            info = running_service(open_workspace(workspace))
            url = info.url if info else None
        if url is not None:
            try:
                runs = httpx.get(url + "/v1/memory/stats", timeout=60).json()["last_runs"]
            except httpx.HTTPError:
                runs = {}
            if "memory_v3_maintain" in runs:
                return url
        time.sleep(0.5)
    raise SystemExit("the service never finished its startup maintain")


def rss_mib(pid: int, field: str = "VmRSS") -> float | None:
    """A process's resident memory in MiB (`field`: another line of its
    `/proc/PID/status`, e.g. `RssAnon`); None when it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None
