"""`memory serve --workspaces DIR --processes 2` with real processes: every
request lands on either process and reaches its workspace's one writer; a
killed writer's workspaces are taken over and nothing written is lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from service.tenants.tokens import workspace_token
from substrate import init_workspace, open_workspace
from substrate.safety.fencing import read_lease

PAGE = "---\ntitle: Note {n}\n---\nThe plumber came on visit {n} to {w}."


def call(url: str, token: str, method: str, path: str, body: object = None) -> httpx.Response:
    """One request on a fresh connection (the kernel picks the process)."""
    with httpx.Client(base_url=url, timeout=120) as client:
        return client.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})


def shut_down(service: subprocess.Popen[str]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 90 s."""
    service.send_signal(signal.SIGTERM)
    try:
        service.wait(timeout=90)
    except subprocess.TimeoutExpired:
        service.kill()


@pytest.mark.slow
def test_two_processes_one_writer_each_and_a_killed_one_is_taken_over(tmp_path: Path) -> None:
    tokens = {}
    for w in ("a", "b"):
        init_workspace(tmp_path / w)
        tokens[w], _ = workspace_token(open_workspace(tmp_path / w))
    service = subprocess.Popen(
        [sys.executable, "-c", "from service.cli import cli; cli()", "serve",
         "--workspaces", str(tmp_path), "--processes", "2", "--port", "0"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    assert service.stdout is not None
    try:
        said = service.stdout.readline()
        url = said.split(" at ")[1].split("/w/")[0]
        written: dict[str, list[int]] = {"a": [], "b": []}
        for n in range(16):
            w = "ab"[n % 2]
            body = {"slug": f"notes/n{n}", "content": PAGE.format(n=n, w=w)}
            answer = call(url, tokens[w], "POST", f"/w/{w}/v1/memory/pages/write", body)
            assert answer.status_code == 200, answer.text
            written[w].append(n)
        leases = {w: read_lease(open_workspace(tmp_path / w).state_dir) for w in "ab"}
        assert all(lease is not None and lease.generation == 1 for lease in leases.values())
        owner = leases["a"]
        assert owner is not None
        os.kill(int(owner.owner.split(":")[1]), signal.SIGKILL)
        body = {"slug": "notes/after", "content": PAGE.format(n="after", w="a")}
        deadline = time.monotonic() + 60
        while True:
            answer = call(url, tokens["a"], "POST", "/w/a/v1/memory/pages/write", body)
            if answer.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer.status_code == 200, answer.text
        taken = read_lease(open_workspace(tmp_path / "a").state_dir)
        assert taken is not None and taken.generation == 2 and taken.owner != owner.owner
        for w, numbers in written.items():
            for n in numbers:
                page = call(url, tokens[w], "GET", f"/w/{w}/v1/memory/pages/notes/n{n}")
                assert page.status_code == 200 and f"visit {n} to {w}" in page.text
        hits = call(
            url, tokens["b"], "POST", "/w/b/v1/memory/search", {"query": "plumber", "k": 50}
        )
        assert {h["slug"] for h in hits.json()["hits"]} == {f"notes/n{n}" for n in written["b"]}
        assert json.loads(call(url, tokens["a"], "GET", "/w/a/v1/memory/pages/notes/after").text)
    finally:
        shut_down(service)
        service.stdout.close()


@pytest.mark.slow
def test_many_workspaces_opened_at_once_on_two_processes_answer_without_errors(
    tmp_path: Path,
) -> None:
    """Leases move while many workspaces open on two processes at once: each
    request waits for its workspace's owner instead of answering 503, no answer
    names a path of the server, and the service logs no line per forward."""
    from concurrent.futures import ThreadPoolExecutor

    ids = [f"w{n:02d}" for n in range(10)]
    tokens = {}
    for w in ids:
        init_workspace(tmp_path / w)
        tokens[w], _ = workspace_token(open_workspace(tmp_path / w))
    service = subprocess.Popen(
        [sys.executable, "-c", "from service.cli import cli; cli()", "serve",
         "--workspaces", str(tmp_path), "--processes", "2", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    assert service.stdout is not None and service.stderr is not None
    try:
        url = service.stdout.readline().split(" at ")[1].split("/w/")[0]

        def card(n: int) -> httpx.Response:
            w = ids[n % len(ids)]
            body = {"message": f"what did I plan for {w}?"}
            return call(url, tokens[w], "POST", f"/w/{w}/v1/memory/card", body)

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(card, range(2 * len(ids))))
        failed = [(a.status_code, a.text[:200]) for a in answers if a.status_code != 200]
        assert failed == []
        assert not any(str(tmp_path) in a.text for a in answers)
    finally:
        shut_down(service)
        logged = service.stderr.read()
        service.stdout.close()
        service.stderr.close()
    assert "HTTP Request:" not in logged


@pytest.mark.slow
def test_on_two_processes_a_delete_racing_writers_and_bodies_past_the_owners_limit(
    tmp_path: Path,
) -> None:
    """An admin delete lands on either process while four writers post to the
    workspace through both: the process that writes it deletes it (the other
    passes the delete on), nothing brings the folder back, and the id is free
    again every round. A body past the owner's route limit, streamed to either
    process, is answered 413 by whichever took it, never 503."""
    import threading

    admin = "c" * 40
    for w in ("ann", "bea"):
        init_workspace(tmp_path / w)
    tokens = {w: workspace_token(open_workspace(tmp_path / w))[0] for w in ("ann", "bea")}
    service = subprocess.Popen(
        [sys.executable, "-c", "from service.cli import cli; cli()", "serve",
         "--workspaces", str(tmp_path), "--processes", "2", "--port", "0"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "MEMORY_ADMIN_TOKEN": admin},
    )  # fmt: skip
    assert service.stdout is not None
    headers = {"Authorization": f"Bearer {admin}"}
    try:
        url = service.stdout.readline().split(" at ")[1].split("/w/")[0]
        for n in range(4):
            made = httpx.post(
                f"{url}/admin/workspaces", json={"workspace": "carol"}, headers=headers, timeout=120
            )
            assert made.status_code == 201, made.text
            stop = threading.Event()

            def write(token: str = made.json()["token"], stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    try:
                        call(url, token, "POST", "/w/carol/v1/memory/remember", {"text": "A note."})
                    except httpx.HTTPError:
                        continue

            writers = [threading.Thread(target=write) for _ in range(4)]
            for t in writers:
                t.start()
            time.sleep(0.5 + n * 0.2)
            while True:  # a 503 says it was opened elsewhere meanwhile: retry
                deleted = httpx.delete(
                    f"{url}/admin/workspaces/carol", headers=headers, timeout=120
                )
                if deleted.status_code != 503:
                    break
            stop.set()
            for t in writers:
                t.join()
            assert deleted.status_code == 200, deleted.text
            assert not (tmp_path / "carol").exists()
        for w in ("ann", "bea") * 3:  # each owned by one process, asked on either

            def body() -> object:
                yield b'{"text": "'
                for _ in range(16):
                    yield b"x" * (1 << 20)
                yield b'"}'

            try:
                status = httpx.post(
                    f"{url}/w/{w}/v1/memory/remember",
                    content=body(),
                    headers={"Authorization": f"Bearer {tokens[w]}"},
                    timeout=120,
                ).status_code
            except httpx.HTTPError:
                status = 413  # refused, and the connection closed on the rest of the body
            assert status == 413
    finally:
        shut_down(service)
        service.stdout.close()
