"""One owner of a served workspace: every CLI command that writes goes through
the running service, or is refused (exit 64) naming the service's URL and pid;
none opens the workspace for writing in its own process."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from service.app import create_app
from service.cli import cli
from service.discovery import service_file
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

PATCHED = (
    "service.cli.target",
    "service.cli.chat_import",
    "service.cli.held",
    "service.cli.profile",
)


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def owned(
    workspace: Workspace, write_page: PageWriter, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[httpx.Client, str, int]]:
    """A served workspace whose service file names a live process other than this
    one (the CLI here plays a second process); opening the workspace locally
    fails the test."""
    write_page("people/sam", "---\ntitle: Sam\n---\nSam is allergic to shellfish.\n")
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

    def opened_here(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a CLI command opened the served workspace in its own process")

    # every module is imported before any is patched: a module first imported while
    # `target` is patched would keep the patched function after the undo
    for module in PATCHED:
        importlib.import_module(module)
    try:
        with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
            wait_for_startup_maintain(client)
            service_file(workspace).write_text(json.dumps({"url": base, "pid": owner.pid}))
            for where in PATCHED:
                monkeypatch.setattr(f"{where}.local_memory", opened_here, raising=False)
            yield client, base, owner.pid
    finally:
        owner.kill()
        owner.wait()


def run(workspace: Workspace, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--workspace", str(workspace.root)])


def test_an_import_beside_the_service_goes_through_it_and_is_searchable_on_return(
    owned: tuple[httpx.Client, str, int], workspace: Workspace, tmp_path: Path
) -> None:
    client, _, _ = owned
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"session": "boat", "role": "user", "text": "We moored the sloop at Kirkwall harbour."},
        {"session": "boat", "role": "assistant", "text": "Kirkwall has a good chandlery."},
    ]
    lines = [{**line, "time": f"2026-11-0{n + 1}T10:00:00Z"} for n, line in enumerate(lines)]
    chat.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = run(workspace, "import", "jsonl", str(chat), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["appended"] == 2
    hits = client.post(
        "/v1/memory/search", json={"query": "sloop Kirkwall harbour", "kind": "episode"}
    ).json()["hits"]
    assert hits and hits[0]["session_id"] == "import:jsonl:boat"  # searchable as the call returned
    assert run(workspace, "maintain").exit_code == 0  # the service's index stays whole
    problems = client.get("/v1/memory/problems").json()["problems"]
    assert problems == []


def test_profile_and_release_and_curation_go_through_the_service(
    owned: tuple[httpx.Client, str, int], workspace: Workspace
) -> None:
    client, base, _ = owned
    added = run(workspace, "profile", "add", "Prefer metric units.", "--json")
    assert added.exit_code == 0, added.output
    lines = client.get("/v1/profile").json()["files"]
    assert any("Prefer metric units." in f["text"] for f in lines)
    assert run(workspace, "release", "--all").exit_code == 0
    missing = run(workspace, "apply", "c-nope")
    assert missing.exit_code == 1 and "c-nope" in missing.output  # the service's answer
    assert base not in missing.output


@pytest.mark.parametrize(
    "args",
    [
        ("compact", "USER.md"),
        ("finalization", "prune"),
        ("finalization", "retry", "1"),
    ],
)
def test_a_writing_command_without_a_route_is_refused_naming_the_service(
    owned: tuple[httpx.Client, str, int], workspace: Workspace, args: tuple[str, ...]
) -> None:
    _, base, pid = owned
    refused = run(workspace, *args)
    assert refused.exit_code == 64, refused.output
    assert base in refused.output and f"pid {pid}" in refused.output


def test_doctor_checks_the_index_through_the_service_that_holds_it(
    owned: tuple[httpx.Client, str, int], workspace: Workspace
) -> None:
    client, base, _ = owned
    healthy = run(workspace, "doctor", "--json")
    assert healthy.exit_code == 0, healthy.output
    assert not any("skipped" in note for note in json.loads(healthy.stdout)["notes"])
    (workspace.index_dir / "bm25-stats.json").unlink()  # a derived file lost under it
    found = client.get("/v1/memory/problems", params={"index": "1"}).json()["problems"]
    assert found and all(p["kind"] for p in found)
    assert client.get("/v1/memory/problems").json()["problems"] == []  # files only
    sick = run(workspace, "doctor", "--json")
    assert sick.exit_code == 1
    assert [p["kind"] for p in json.loads(sick.stdout)["problems"]] == [p["kind"] for p in found]
    assert base not in sick.output
