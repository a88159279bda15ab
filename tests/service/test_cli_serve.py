"""`memory serve` as a real process on loopback, and the CLI going through it.

While the service owns the embedded shard, `memory search`, `remember`,
`card` and `maintain` in another process find it through
`.substrate/service.json` and call it over HTTP (opening the shard
themselves would fail on its lock). Stopping the service (SIGTERM, as
`docker stop` sends) withdraws the file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from service.cli import cli
from service.discovery import running_service, service_file
from substrate import Workspace, init_workspace, open_workspace
from tests.service.served import wait_for_startup_maintain

pytestmark = pytest.mark.slow  # the service loads the real model

STARTUP_S = 300
PAGES = {
    "people/sam": "---\ntitle: Sam\n---\nSam is allergic to shellfish.",
    "places/lisbon": "---\ntitle: Lisbon\n---\nThe family lives in Lisbon.",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """One served workspace for the module: starting the service loads the model."""
    root = tmp_path_factory.mktemp("served") / "ws"
    init_workspace(root)
    ws = open_workspace(root)
    for slug, text in PAGES.items():
        path = ws.concepts_dir / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return ws


@pytest.fixture(scope="module")
def service(workspace: Workspace) -> Iterator[str]:
    memory = str(Path(sys.executable).parent / "memory")  # the installed entry point
    command = [memory, "serve", "--workspace", str(workspace.root), "--port", "0"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield wait_until_served(workspace, proc)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # what `docker stop` sends; Ctrl-C takes the same path
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert proc.returncode == 0, out
    assert "memory service stopped" in out
    assert not service_file(workspace).exists()  # withdrawn on shutdown


def wait_until_served(workspace: Workspace, proc: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"memory serve exited {proc.returncode}")
        info = running_service(workspace)
        if info is not None:
            wait_for_index(info.url)
            return info.url
        time.sleep(0.1)
    raise AssertionError("memory serve never announced itself")


def wait_for_index(url: str) -> None:
    with httpx.Client(base_url=url, timeout=120) as client:
        wait_for_startup_maintain(client, STARTUP_S)


def run_cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_cli_commands_go_through_the_running_service(service: str, workspace: Workspace) -> None:
    ws = ["--workspace", str(workspace.root)]
    info = running_service(workspace)
    assert info is not None and info.url == service and info.pid != os.getpid()
    hits = run_cli("search", *ws, "--json", "shellfish allergy")
    assert hits[0]["slug"] == "people/sam"
    remembered = CliRunner().invoke(cli, ["remember", *ws, "Sam moved to Porto"])
    assert remembered.exit_code == 0, remembered.output
    stats = httpx.get(service + "/v1/memory/stats", timeout=60).json()
    assert stats["buffer_entries"] == 1
    card = run_cli("card", *ws, "--json", "--conversation", "c1", "tell me about Sam")
    assert "people/sam" in [s["slug"] for s in card["selected"]]


def test_an_explicit_url_reaches_a_service_and_a_dead_one_is_a_clear_error(
    service: str,
) -> None:
    hits = run_cli("search", "--url", service, "--json", "family Lisbon")
    assert hits[0]["slug"] == "places/lisbon"
    result = CliRunner().invoke(cli, ["search", "--url", "http://127.0.0.1:9", "x"])
    assert result.exit_code != 0
    assert "http://127.0.0.1:9" in result.output
