"""The DNS-rebinding guard through a real server: a request naming the service
by a foreign name is refused before any route runs, a state change from a
foreign origin is refused, and the service's own page and clients still work."""

from __future__ import annotations

import httpx
import pytest

from service.app import create_app
from service.host_guard import allowed_hosts, host_name
from service.settings_loader import build_settings
from substrate import Workspace
from tests.service.served import served, wait_for_startup_maintain
from tests.service.test_app import runtime

REBIND = "rebind.evil.example"


@pytest.fixture
def base(workspace: Workspace) -> object:
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as url:
        yield url


def test_a_rebound_name_can_neither_write_nor_read(base: str, workspace: Workspace) -> None:
    port = base.rsplit(":", 1)[1]
    foreign = {"Host": f"{REBIND}:{port}"}
    with httpx.Client(base_url=base, timeout=60) as client:
        wait_for_startup_maintain(client)
        wrote = client.post(
            "/v1/memory/remember", json={"text": "I live at 1 Evil Road."}, headers=foreign
        )
        assert wrote.status_code == 403
        assert wrote.json()["error"]["code"] == "forbidden"
        assert "Host header" in wrote.json()["error"]["message"]
        for path in ("/v1/memory/stats", "/v1/profile", "/v1/sessions", "/", "/mcp", "/docs"):
            assert client.get(path, headers=foreign).status_code == 403, path
        buffer = workspace.root / "memory" / "buffer.md"
        assert not buffer.exists() or "Evil Road" not in buffer.read_text()
        assert client.get("/healthz", headers=foreign).status_code == 200


def test_a_foreign_origin_cannot_change_state_but_the_own_page_can(base: str) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        wait_for_startup_maintain(client)
        hostile = client.post(
            "/v1/memory/remember",
            json={"text": "I like tea."},
            headers={"Origin": "http://localhost:3000"},
        )
        assert hostile.status_code == 403 and "Origin header" in hostile.json()["error"]["message"]
        null = client.post(
            "/v1/memory/remember", json={"text": "I like tea."}, headers={"Origin": "null"}
        )
        assert null.status_code == 403
        own = client.post(
            "/v1/memory/remember", json={"text": "I like tea."}, headers={"Origin": base}
        )
        assert own.status_code == 200, own.text
        assert client.get("/").status_code == 200
        read = client.get("/v1/memory/stats", headers={"Origin": "http://elsewhere.example"})
        assert read.status_code == 200  # a read from elsewhere is the browser's to refuse


def test_loopback_literals_and_configured_names_are_answered(workspace: Workspace) -> None:
    names = allowed_hosts("0.0.0.0", ["Memory.Internal."])
    app = create_app(build_settings(workspace.root), hosts=names, runtime_factory=runtime)
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        port = url.rsplit(":", 1)[1]
        for host in ("memory.internal", "127.0.0.2", "localhost", "[::1]"):
            got = client.get("/v1/memory/stats", headers={"Host": f"{host}:{port}"})
            assert got.status_code == 200, host
        assert client.get("/", headers={"Host": "0.0.0.0"}).status_code == 403


@pytest.mark.parametrize(
    ("authority", "name"),
    [("[::1]:8765", "::1"), ("Example.COM.:80", "example.com"), ("host", "host"), ("", "")],
)
def test_host_names_are_read_without_port_case_or_trailing_dot(authority: str, name: str) -> None:
    assert host_name(authority) == name
