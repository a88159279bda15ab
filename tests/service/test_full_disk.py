"""A full disk: every request answers with a typed error (507, `disk_full`) or,
for a card, with the card itself; nothing half written; and a service started
on a full disk says so in one line instead of dying of SIGBUS."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from service.app import create_app
from service.settings_loader import build_settings
from substrate import init_workspace, read_buffer
from tests.mounts import fill, tiny_disk
from tests.service.served import served, wait_for_startup_maintain
from tests.service.test_conversations import runtime

PAGE = "---\ntitle: Lisbon\n---\nThe family lives in Lisbon near the river.\n"


def workspace_on(disk: Path) -> Path:
    root = disk / "ws"
    init_workspace(root)
    (root / "config.toml").write_text(
        "[memory.v3]\nlive = true\n[memory.substrate]\nscanner_detector = false\n"
    )
    (root / "memory" / "concepts" / "lisbon.md").write_text(PAGE)
    return root


def test_every_route_answers_on_a_full_disk_and_cards_still_work(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", 160 * 1024) as disk:
        root = workspace_on(disk)
        settings = build_settings(root)
        app = create_app(settings, runtime_factory=runtime)
        with served(app) as url, httpx.Client(base_url=url, timeout=60) as api:
            wait_for_startup_maintain(api)
            assert (
                api.post("/v1/memory/remember", json={"text": "before the disk filled"}).status_code
                == 200
            )
            before = read_buffer(settings)
            fill(disk)
            card = api.post(
                "/v1/memory/card",
                json={"message": "where does the family live?", "conversation_id": "c1"},
            )
            assert card.status_code == 200 and "lisbon" in card.json()["memory"]
            answers = {
                "remember": api.post("/v1/memory/remember", json={"text": "Sam moved to Porto"}),
                "messages": api.post(
                    "/v1/conversations/s1/messages",
                    json={"messages": [{"role": "user", "text": "hi"}]},
                ),
                "ingest": api.post(
                    "/v1/memory/ingest",
                    json={"pages": [{"slug": "porto", "content": PAGE}], "wait": False},
                ),
                "stats": api.get("/v1/memory/stats"),
                "search": api.post("/v1/memory/search", json={"query": "river"}),
            }
            for route, answer in answers.items():
                assert answer.status_code != 500, (route, answer.text)
                if answer.status_code >= 400:
                    assert answer.json()["error"]["code"] == "disk_full", (route, answer.text)
            assert answers["remember"].status_code == 507
            assert answers["search"].status_code == 200
            assert read_buffer(settings) == before  # nothing half written
            assert (
                "Sam moved"
                not in (root / "memory" / "archive")
                .joinpath(f"{before[0].at:%Y-%m-%d}.md")
                .read_text()
            )


def test_a_service_started_on_a_full_disk_says_so_in_one_line(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", 160 * 1024) as disk:
        root = workspace_on(disk)
        fill(disk)
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from service.cli import main; main()",
                "serve",
                "--workspace",
                str(root),
                "--port",
                "0",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, (done.returncode, done.stderr)  # not -7: no SIGBUS
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "free" in lines[0]
