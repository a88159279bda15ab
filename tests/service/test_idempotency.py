"""Idempotent writes: a write sent again with the same `Idempotency-Key` (or MCP
`request_id`) gets the first answer and is done once; the key store keeps no
fact's words, and a forget or a purge leaves nothing in it."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import Client

from service.app import create_app
from service.client import ServiceClient
from service.mcp import build_server
from service.replays import replay_store
from service.runtime import Runtime
from service.settings_loader import build_settings
from substrate import Settings, Workspace, read_buffer
from tests.embedders import HashingEmbedder
from tests.service.served import served, wait_for_startup_maintain

SECRET_WORDS = "my locker code is kept at the Quernmouth library"


def runtime(settings: Settings) -> Runtime:
    return Runtime(
        settings, embedder=HashingEmbedder(), multilingual=HashingEmbedder(48), poll_s=0.05
    )


@pytest.fixture
def api(workspace: Workspace) -> Iterator[httpx.Client]:
    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    with served(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        wait_for_startup_maintain(client)
        yield client


def store_bytes(workspace: Workspace) -> bytes:
    return b"".join(p.read_bytes() for p in workspace.state_dir.glob("requests.sqlite*"))


WRITES: list[tuple[str, dict[str, Any]]] = [
    ("/v1/memory/remember", {"text": f"I said {SECRET_WORDS}."}),
    ("/v1/profile/lines", {"text": "Prefer replies about Quernmouth in Scots."}),
    (
        "/v1/memory/pages/write",
        {"slug": "places/quernmouth", "content": f"# Quernmouth\n\n{SECRET_WORDS}.\n"},
    ),
]


@pytest.mark.parametrize(("route", "body"), WRITES)
def test_a_write_sent_twice_with_one_key_is_done_once_and_answered_alike(
    api: httpx.Client, workspace: Workspace, route: str, body: dict[str, Any]
) -> None:
    first = api.post(route, json=body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == 200, first.text
    again = api.post(route, json=body, headers={"Idempotency-Key": "k-1"})
    assert (again.status_code, again.json()) == (200, first.json())
    assert again.headers["idempotent-replayed"] == "true"
    fresh = api.post(route, json=body, headers={"Idempotency-Key": "k-2"})
    assert "idempotent-replayed" not in fresh.headers  # a new key is a new request
    assert b"Quernmouth" not in store_bytes(workspace)  # encrypted: no fact's words
    other = api.post(route, json={**body, "text": "x"}, headers={"Idempotency-Key": "k-1"})
    assert other.status_code == 422 and "another request" in other.json()["error"]["message"]


def test_a_remember_retried_with_its_key_is_stored_once(
    api: httpx.Client, workspace: Workspace
) -> None:
    body = {"text": f"Remember that {SECRET_WORDS}."}
    answers = [
        api.post("/v1/memory/remember", json=body, headers={"Idempotency-Key": "same"}).json()
        for _ in range(3)
    ]
    assert len({a["id"] for a in answers}) == 1
    settings = build_settings(workspace.root)
    assert sum("Quernmouth" in e.text for e in read_buffer(settings)) == 1
    bad = api.post("/v1/memory/remember", json=body, headers={"Idempotency-Key": "x" * 300})
    assert bad.status_code == 422 and "Idempotency-Key" in bad.json()["error"]["message"]


def test_a_forget_or_a_purge_leaves_nothing_in_the_key_store(
    api: httpx.Client, workspace: Workspace
) -> None:
    done = api.post(
        "/v1/memory/remember",
        json={"text": f"Remember {SECRET_WORDS}."},
        headers={"Idempotency-Key": "to-forget"},
    ).json()
    assert replay_store(workspace.state_dir).count() == 1
    forgot = api.post("/v1/memory/forget", json={"what": done["id"]})
    assert forgot.status_code == 200, forgot.text
    assert replay_store(workspace.state_dir).count() == 0
    api.post("/v1/memory/remember", json={"text": "I like kelp."}, headers={"Idempotency-Key": "a"})
    purged = api.post("/v1/memory/purge", json={}).json()
    assert any(r["what"] == "request keys" for r in purged["rewrote"])
    assert replay_store(workspace.state_dir).count() == 0


@pytest.mark.parametrize("by", ["id", "words"])
def test_a_forget_sent_with_a_key_keeps_its_ids_never_its_words(
    api: httpx.Client, workspace: Workspace, by: str
) -> None:
    said = f"My safe word with my kids is {SECRET_WORDS}."
    done = api.post("/v1/memory/remember", json={"text": said}).json()
    what = done["id"] if by == "id" else "Quernmouth library"
    body = {"what": what}
    first = api.post("/v1/memory/forget", json=body, headers={"Idempotency-Key": "f-1"})
    assert first.status_code == 200, first.text
    assert "Quernmouth" not in first.text and "safe word" not in first.text  # ids, never words
    again = api.post("/v1/memory/forget", json=body, headers={"Idempotency-Key": "f-1"})
    assert again.headers["idempotent-replayed"] == "true"
    assert "Quernmouth" not in again.text and "safe word" not in again.text
    assert again.json()["forgot"] == first.json()["forgot"] == (what if by == "id" else "text")
    assert [f["id"] for f in again.json()["facts"]] == [f["id"] for f in first.json()["facts"]]


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/v1/memory/search", {"query": "Quernmouth"}),
        ("/v1/memory/card", {"message": "Quernmouth?"}),
    ],
)
def test_a_read_with_a_key_is_answered_afresh_and_never_kept(
    api: httpx.Client, workspace: Workspace, route: str, body: dict[str, Any]
) -> None:
    api.post("/v1/memory/remember", json={"text": f"I said {SECRET_WORDS}."})
    before = replay_store(workspace.state_dir).count()
    for _ in range(2):
        answer = api.post(route, json=body, headers={"Idempotency-Key": "r-1"})
        assert answer.status_code in (200, 404, 422), answer.text
        assert "idempotent-replayed" not in answer.headers
    assert replay_store(workspace.state_dir).count() == before


def test_the_key_store_is_bounded_in_rows_and_bytes(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import service.replays as replays

    monkeypatch.setattr(replays, "MAX_ROWS", 50)
    monkeypatch.setattr(replays, "MAX_BYTES", 20_000)
    store = replay_store(workspace.state_dir)
    for n in range(200):
        claim = store.begin(f"key-{n}", "POST", "/v1/memory/remember", b"%d" % n)
        store.finish(claim, 200, b"x" * 300)
    assert store.count() <= 50
    newest = store.begin("key-199", "POST", "/v1/memory/remember", b"199")
    assert newest.replay is not None  # the newest answers stay


class DroppingProxy:
    """A loopback proxy that forwards each request and, for the first `drops`
    connections, closes without passing the answer on: a request that landed
    and whose connection dropped."""

    def __init__(self, target: str, drops: int) -> None:
        host, port = target.removeprefix("http://").split(":")
        self._target = (host, int(port))
        self._drops = drops
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with client:
                request = _read_http(client)
                with socket.create_connection(self._target) as upstream:
                    upstream.sendall(request)
                    answer = _read_http(upstream)
                if self._drops > 0:
                    self._drops -= 1
                    continue  # closed without an answer
                client.sendall(answer)

    def close(self) -> None:
        self._server.close()


def _read_http(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_the_cli_s_client_retries_a_dropped_write_with_its_key(
    api: httpx.Client, workspace: Workspace
) -> None:
    proxy = DroppingProxy(str(api.base_url).rstrip("/"), drops=1)
    client = ServiceClient(proxy.url)
    try:
        answer = client.post("/v1/memory/remember", {"text": f"Note: {SECRET_WORDS}."})
    finally:
        client.close()
        proxy.close()
    settings = build_settings(workspace.root)
    stored = [e for e in read_buffer(settings) if "Quernmouth" in e.text]
    assert [e.id for e in stored] == [answer["id"]]  # landed once, answered on the retry


def test_mcp_remember_with_a_request_id_is_stored_once(workspace: Workspace) -> None:
    settings = build_settings(workspace.root)
    rt = runtime(settings)
    try:
        server = build_server(settings, lambda: rt.memory)

        async def main() -> list[Any]:
            async with Client(server) as client:
                args = {"text": f"I noted {SECRET_WORDS}.", "request_id": "r-1"}
                return [
                    (await client.call_tool("remember", args)).structured_content for _ in range(2)
                ]

        first, again = asyncio.run(main())
        assert first == again
        assert sum("Quernmouth" in e.text for e in read_buffer(settings)) == 1
    finally:
        rt.close()


def test_a_first_request_that_died_running_does_not_block_its_key_for_good(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import service.replays as replays

    store = replay_store(workspace.state_dir)
    store.begin("k", "POST", "/v1/memory/remember", b"{}")  # claimed; its process died
    with pytest.raises(Exception, match="still running"):
        store.begin("k", "POST", "/v1/memory/remember", b"{}")
    now = time.time()
    monkeypatch.setattr(store, "_now", lambda: now + replays.STALE_RUNNING_S + 1)
    claim = store.begin("k", "POST", "/v1/memory/remember", b"{}")
    assert claim.replay is None  # run again
