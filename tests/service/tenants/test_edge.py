"""The multi-workspace edge: ids, tokens, the one 404, the admin routes, the
web page under a prefix, and the pool's bound on open workspaces."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.tenants.ids import checked_workspace_id, is_workspace_id
from service.tenants.tokens import opens, read_token, token_path, workspace_token
from substrate import InvalidInputError, init_workspace, open_workspace
from tests.service.tenants.served_tenants import ADMIN, bearer, create, tenants

PAGE = "---\ntitle: Plumber\n---\nThe plumber is {name}."


@pytest.mark.parametrize("good", ["a", "alice", "team-7", "a_b", "0", "x" * 48])
def test_plain_ids_are_workspace_ids(good: str) -> None:
    assert is_workspace_id(good) and checked_workspace_id(good) == good


@pytest.mark.parametrize(
    "bad",
    ["", "..", ".hidden", "a/b", "a\\b", "Alice", "é", "аlice", "-a", "a-", "a.b", "a%2f",
     "x" * 49, " a", "a\x00"],
)  # fmt: skip
def test_anything_else_is_refused_with_what_an_id_may_hold(bad: str) -> None:
    assert not is_workspace_id(bad)
    with pytest.raises(InvalidInputError, match="lowercase letters, digits"):
        checked_workspace_id(bad)


def test_a_token_is_owner_only_stable_and_rotated_away(tmp_path: Path) -> None:
    init_workspace(tmp_path / "w")
    ws = open_workspace(tmp_path / "w")
    assert read_token(ws) is None and not opens(ws, "anything")
    token, made = workspace_token(ws)
    assert made and stat.S_IMODE(os.stat(token_path(ws)).st_mode) == 0o600
    assert workspace_token(ws) == (token, False) and opens(ws, token)
    rotated, made = workspace_token(ws, rotate=True)
    assert made and rotated != token and opens(ws, rotated) and not opens(ws, token)
    token_path(ws).write_text("not a token\n")
    assert read_token(ws) is None and not opens(ws, "not a token")


def test_the_cli_prints_and_rotates_a_workspaces_token(tmp_path: Path) -> None:
    init_workspace(tmp_path / "w")
    runner = CliRunner()
    first = runner.invoke(cli, ["workspace", "token", "--workspace", str(tmp_path / "w")])
    again = runner.invoke(cli, ["workspace", "token", "--workspace", str(tmp_path / "w")])
    rotated = runner.invoke(
        cli, ["workspace", "token", "--workspace", str(tmp_path / "w"), "--rotate"]
    )
    assert first.exit_code == again.exit_code == rotated.exit_code == 0
    assert first.stdout == again.stdout and rotated.stdout != first.stdout
    assert read_token(open_workspace(tmp_path / "w")) == rotated.stdout.strip()


def test_a_wrong_token_a_missing_one_and_no_workspace_answer_the_same(tmp_path: Path) -> None:
    with tenants(tmp_path) as (client, _):
        alice, bob = create(client, "alice"), create(client, "bob")
        path = "/w/alice/v1/memory/stats"
        assert client.get(path, headers=alice).status_code == 200
        answers = [
            client.get(path, headers=bob),  # another workspace's token
            client.get(path),  # none
            client.get(path, headers=bearer("x" * 64)),  # a made-up one
            client.get("/w/carol/v1/memory/stats", headers=alice),  # no such workspace
            client.get("/w/%61lice/v1/memory/stats", headers=alice),  # the id encoded
            client.get("/w/../alice/v1/memory/stats", headers=alice),
            client.get("/w/ALICE/v1/memory/stats", headers=alice),
        ]
        assert {r.status_code for r in answers} == {404}
        assert len({r.text for r in answers}) == 1


def test_admin_routes_need_the_admin_token_and_show_no_contents(tmp_path: Path) -> None:
    with tenants(tmp_path) as (client, pool):
        assert client.get("/admin/workspaces").status_code == 401
        assert client.get("/admin/workspaces", headers=bearer("nope")).status_code == 401
        alice = create(client, "alice")
        write = {"slug": "people/joe", "content": PAGE.format(name="Joe")}
        assert client.post("/w/alice/v1/memory/pages/write", json=write, headers=alice).is_success
        again = client.post("/admin/workspaces", json={"workspace": "alice"}, headers=bearer(ADMIN))
        assert again.status_code == 409
        bad = client.post("/admin/workspaces", json={"workspace": "../x"}, headers=bearer(ADMIN))
        assert bad.status_code == 422 and "workspace must be" in bad.text
        listed = client.get("/admin/workspaces", headers=bearer(ADMIN))
        assert listed.json() == {"workspaces": [{"workspace": "alice", "open": True}]}
        # the admin token opens no workspace
        assert client.get("/w/alice/v1/memory/stats", headers=bearer(ADMIN)).status_code == 404
        gone = client.delete("/admin/workspaces/alice", headers=bearer(ADMIN))
        assert gone.json() == {"deleted": "alice"} and not (tmp_path / "alice").exists()
        assert list(tmp_path.iterdir()) == [] and pool.open_ids() == []
        assert client.get("/w/alice/v1/memory/stats", headers=alice).status_code == 404
        assert client.delete("/admin/workspaces/alice", headers=bearer(ADMIN)).status_code == 404


def test_without_an_admin_token_there_are_no_admin_routes(tmp_path: Path) -> None:
    with tenants(tmp_path, admin=None) as (client, _):
        answer = client.get("/admin/workspaces", headers=bearer(ADMIN))
        assert answer.status_code == 404


def test_a_folder_made_with_init_is_served_with_its_own_token(tmp_path: Path) -> None:
    init_workspace(tmp_path / "made-by-hand")
    token, _ = workspace_token(open_workspace(tmp_path / "made-by-hand"))
    init_workspace(tmp_path / "no-token")
    with tenants(tmp_path) as (client, _):
        assert client.get("/w/made-by-hand/v1/memory/stats", headers=bearer(token)).is_success
        assert client.get("/w/no-token/v1/memory/stats").status_code == 404


def test_the_web_page_is_served_under_any_id_and_calls_its_own_prefix(tmp_path: Path) -> None:
    with tenants(tmp_path) as (client, _):
        page = client.get("/w/anyone/")
        assert page.status_code == 200 and 'src="static/app.js"' in page.text
        script = client.get("/w/anyone/static/app.js")
        assert script.status_code == 200 and "BASE + path" in script.text
        moved = client.get("/w/anyone")
        assert moved.status_code == 307 and moved.headers["location"] == "/w/anyone/"


def test_past_the_bound_the_least_recently_used_workspace_closes(tmp_path: Path) -> None:
    with tenants(tmp_path, max_open=2) as (client, pool):
        heads = {w: create(client, w) for w in ("a", "b", "c")}
        for w in ("a", "b", "c", "a"):
            assert client.get(f"/w/{w}/v1/memory/stats", headers=heads[w]).is_success
        deadline = time.monotonic() + 30
        while pool.open_ids() != ["a", "c"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool.open_ids() == ["a", "c"]
        assert client.get("/w/b/v1/memory/stats", headers=heads["b"]).is_success  # reopens


def test_an_idle_workspace_closes_and_reopens_on_its_next_request(tmp_path: Path) -> None:
    with tenants(tmp_path, idle_s=1.0) as (client, pool):
        head = create(client, "a")
        client.post(
            "/w/a/v1/memory/pages/write",
            json={"slug": "people/joe", "content": PAGE.format(name="Joe")},
            headers=head,
        )
        deadline = time.monotonic() + 30
        while pool.open_ids() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pool.open_ids() == []
        found = client.get("/w/a/v1/memory/pages/people/joe", headers=head)
        assert found.status_code == 200 and "Joe" in found.text


def test_a_created_workspace_is_pointed_at_the_services_qdrant_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.tenants.serving import point_at_server
    from substrate import load_config
    from substrate.config.tuning import resolve_qdrant_server

    init_workspace(tmp_path / "plain")
    point_at_server(tmp_path / "plain")  # no server: the embedded store
    assert resolve_qdrant_server(load_config(tmp_path / "plain" / "config.toml")) is None
    monkeypatch.setenv("QDRANT_URL", "http://qdrant-1:6333")
    monkeypatch.setenv("QDRANT_REPLICATION", "2")
    init_workspace(tmp_path / "served")
    point_at_server(tmp_path / "served")
    server = resolve_qdrant_server(load_config(tmp_path / "served" / "config.toml"))
    assert server is not None and (server.url, server.replication) == ("http://qdrant-1:6333", 2)


def test_processes_without_workspaces_says_what_to_type(tmp_path: Path) -> None:
    init_workspace(tmp_path / "w")
    done = CliRunner().invoke(
        cli, ["serve", "--workspace", str(tmp_path / "w"), "--processes", "2"]
    )
    assert done.exit_code == 64 and "--processes needs --workspaces DIR" in done.output


def test_a_missing_workspace_and_a_wrong_token_take_the_same_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No timing tells which workspaces exist: a request for one that does not
    exist reads a token file and compares it, as a wrong token for a real one
    does (`bench/adversarial.py` measures the timing itself)."""
    import hmac

    import service.tenants.tokens as tokens

    with tenants(tmp_path) as (client, _):
        create(client, "alice")
        reads: list[str] = []
        compares: list[int] = []
        real_read, real_compare = tokens.read_token, hmac.compare_digest

        def read(ws: object) -> str | None:
            reads.append(str(ws))
            return real_read(ws)  # type: ignore[arg-type]

        def compare(a: bytes, b: bytes) -> bool:
            compares.append(len(b))
            return real_compare(a, b)

        monkeypatch.setattr(tokens, "read_token", read)
        monkeypatch.setattr(tokens.hmac, "compare_digest", compare)
        wrong = bearer("f" * 64)
        for path in ("/w/alice/v1/memory/stats", "/w/zed/v1/memory/stats"):
            reads.clear()
            compares.clear()
            assert client.get(path, headers=wrong).status_code == 404
            assert len(reads) == 1 and compares == [64]


def test_an_admin_delete_racing_writes_leaves_nothing_and_the_id_is_free_again(
    tmp_path: Path,
) -> None:
    """Closed, its lease released, then removed, in that order, against writers
    posting all along: no zombie folder, and a create of the same id works."""
    import threading

    import httpx

    with tenants(tmp_path) as (client, pool):
        for round_ in range(3):
            token = create(client, "carol")
            stop = threading.Event()
            answers: list[int] = []

            def write(
                n: int,
                headers: dict[str, str] = token,
                stop: threading.Event = stop,
                answers: list[int] = answers,
            ) -> None:
                with httpx.Client(base_url=client.base_url, timeout=120) as own:
                    k = 0
                    while not stop.is_set():
                        body = {"text": f"Carol's note {n}-{k} about the garden."}
                        r = own.post("/w/carol/v1/memory/remember", json=body, headers=headers)
                        answers.append(r.status_code)
                        k += 1

            writers = [threading.Thread(target=write, args=(n,)) for n in range(4)]
            for w in writers:
                w.start()
            time.sleep(0.3)
            deleted = client.delete("/admin/workspaces/carol", headers=bearer(ADMIN))
            stop.set()
            for w in writers:
                w.join()
            assert deleted.status_code == 200, deleted.text
            assert set(answers) <= {200, 404}, (round_, set(answers))
            assert not (tmp_path / "carol").exists()  # no zombie: no lease, no lock left
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(".deleted-")]
            assert "carol" not in pool.open_ids()
