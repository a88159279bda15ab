"""The HTTP API under hostile input: bounded bodies, strict types, text that is
not valid Unicode, state deleted under a running service, pages it did not write."""

from __future__ import annotations

import errno
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.settings_loader import build_settings
from substrate import Workspace, read_buffer
from tests.conftest import PageWriter
from tests.service.served import wait_for_startup_maintain
from tests.service.test_app import PAGES, assert_error, client_for


@pytest.fixture
def api(workspace: Workspace, write_page: PageWriter) -> Iterator[TestClient]:
    for slug, text in PAGES.items():
        write_page(slug, text)
    with client_for(build_settings(workspace.root)) as client:
        wait_for_startup_maintain(client)
        yield client


def raw(api: TestClient, path: str, body: str) -> Any:
    """POST a JSON text as given (httpx cannot encode a lone surrogate itself)."""
    return api.post(path, content=body.encode(), headers={"content-type": "application/json"})


def test_a_body_over_the_limit_is_413_and_stores_nothing(
    api: TestClient, workspace: Workspace
) -> None:
    body = json.dumps({"text": "x" * (1024 * 1024)})
    response = raw(api, "/v1/memory/remember", body)
    assert_error(response, 413, "too_large", "over the limit of 1048576")
    assert read_buffer(build_settings(workspace.root)) == []


def test_a_field_over_its_limit_is_413(api: TestClient) -> None:
    assert_error(
        api.post("/v1/memory/search", json={"query": "q" * 9000}),
        413,
        "too_large",
        "memory.limits.query_bytes",
    )
    assert_error(
        api.post("/v1/memory/remember", json={"text": "f" * 40_000}),
        413,
        "too_large",
        "memory.limits.fact_bytes",
    )


def test_a_long_card_message_is_read_by_its_tail(api: TestClient) -> None:
    message = "filler words about nothing in particular. " * 5000 + "Is Sam allergic to shellfish?"
    body = api.post("/v1/memory/card", json={"message": message}).json()
    assert "people/sam" in [s["slug"] for s in body["selected"]]
    assert_error(
        api.post("/v1/memory/card", json={"message": "m" * (256 * 1024 + 1)}),
        413,
        "too_large",
        "memory.limits.message_bytes",
    )


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/memory/maintain", {"rebuild": "yes"}, "rebuild"),
        ("/v1/memory/ingest", {"pages": [], "dry_run": "no"}, "dry_run"),
        ("/v1/memory/search", {"query": "sam", "k": True}, "k"),
        ("/v1/memory/search", {"query": "sam", "k": "3"}, "k"),
        ("/v1/memory/card", {"message": "hi", "voice_front_door": 1}, "voice_front_door"),
    ],
)
def test_wrong_types_are_422_never_coerced(
    api: TestClient, path: str, body: dict[str, Any], field: str
) -> None:
    assert_error(api.post(path, json=body), 422, "invalid_input", field)


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/v1/memory/card", '{"message": "hi \\ud800"}', "message is not valid UTF-8"),
        (
            "/v1/memory/card",
            '{"message": "hi", "conversation_id": "\\udfff"}',
            "conversation_id must be valid UTF-8",
        ),
        ("/v1/memory/remember", '{"text": "x\\ud800"}', "text"),
        ("/v1/memory/remember", '{"text": "x", "hints": ["a\\ud800"]}', "not valid UTF-8"),
        ("/v1/memory/search", '{"query": "\\ud800"}', "query is not valid UTF-8"),
    ],
)
def test_lone_surrogates_are_422(api: TestClient, path: str, body: str, words: str) -> None:
    assert_error(raw(api, path, body), 422, "invalid_input", words)


def test_one_page_with_a_lone_surrogate_fails_alone(api: TestClient) -> None:
    body = '{"pages": [{"slug": "bad", "content": "x\\ud800"}, {"slug": "good", "content": "# G"}]}'
    report = raw(api, "/v1/memory/ingest", body).json()
    assert [p["status"] for p in report["pages"]] == ["failed", "written"]


def test_a_job_id_out_of_range_is_422_not_500(api: TestClient) -> None:
    assert_error(api.get("/v1/jobs/99999999999999999999"), 422, "invalid_input", "job_id")
    assert_error(api.get("/v1/jobs/424242"), 404, "not_found", "no job 424242")


def test_a_blank_query_is_refused(api: TestClient) -> None:
    assert_error(
        api.post("/v1/memory/search", json={"query": "  "}), 422, "invalid_input", "query is empty"
    )


def gone_meanwhile(function: object, path: str, excinfo: tuple[type, object, object]) -> None:
    """rmtree under a live service: SQLite removes its `-shm`/`-wal` files as it
    goes, so one may vanish between rmtree's listing and its unlink."""
    if not issubclass(excinfo[0], FileNotFoundError):
        raise excinfo[1]  # type: ignore[misc]


def delete_under_service(path: Path, tries: int = 20) -> None:
    """`path` deleted as a person repeating `rm -rf` would: a job of the live
    service may write a new file into a folder between rmtree emptying it and
    removing it (the folder is not empty when its turn comes), so that pass
    is run again."""
    for _ in range(tries):
        try:
            shutil.rmtree(path, onerror=gone_meanwhile)
            return
        except OSError as error:
            if error.errno != errno.ENOTEMPTY:
                raise
    raise AssertionError(f"{path} was written to again on each of {tries} deletes")


def test_deleting_the_derived_state_under_a_running_service_costs_no_request(
    api: TestClient, workspace: Workspace
) -> None:
    delete_under_service(workspace.state_dir)
    remembered = api.post("/v1/memory/remember", json={"text": "Sam moved to Porto"})
    assert remembered.status_code == 200
    assert api.get("/v1/memory/stats").status_code == 200
    assert api.post("/v1/consolidation/run-now").status_code == 200
    ingested = api.post(
        "/v1/memory/ingest", json={"pages": [{"slug": "new", "content": "# New\nA fresh page."}]}
    )
    assert ingested.status_code == 200 and ingested.json()["totals"]["written"] == 1
    assert read_buffer(build_settings(workspace.root)) == []  # run-now filed it, once
    pages = [p.read_text() for p in workspace.concepts_dir.rglob("*.md")]
    assert sum(text.count("Sam moved to Porto") for text in pages) == 1


def test_a_page_added_by_hand_becomes_searchable_without_maintain(
    api: TestClient, write_page: PageWriter
) -> None:
    write_page("places/porto", "---\ntitle: Porto\n---\nThe azulejo museum is in Porto.")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        hits = api.post("/v1/memory/search", json={"query": "azulejo museum"}).json()["hits"]
        if hits and hits[0]["slug"] == "places/porto":
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the hand-added page never became searchable")
    runs = api.get("/v1/memory/stats").json()["last_runs"]
    assert runs["memory_v3_maintain"]["detail"]["embedded"] >= 1


def test_disabled_memory_is_409(workspace: Workspace) -> None:
    workspace.config_path.write_text("[memory]\nenabled = false\n")
    with client_for(build_settings(workspace.root)) as client:
        assert_error(
            client.post("/v1/memory/remember", json={"text": "fact"}),
            409,
            "memory_disabled",
            "memory is disabled",
        )


@pytest.mark.parametrize("extra", [1, 200_000, 3 * 1024 * 1024])
@pytest.mark.parametrize("chunked", [False, True])
def test_a_client_that_writes_its_whole_body_first_reads_the_413(
    workspace: Workspace, extra: int, chunked: bool
) -> None:
    """Python's own http.client sends the body whole before it reads: answered
    413 (and the connection closed) before the body was read, it saw a broken
    pipe instead of the answer."""
    import http.client

    from service.app import create_app
    from tests.service.served import served
    from tests.service.test_idempotency import runtime

    app = create_app(build_settings(workspace.root), runtime_factory=runtime)
    body = json.dumps({"text": "x" * (1024 * 1024 + extra)}).encode()
    with served(app) as base:
        host, port = base.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {"Content-Type": "application/json"}
        if chunked:
            parts = (body[i : i + 65536] for i in range(0, len(body), 65536))
            connection.request("POST", "/v1/memory/remember", parts, headers, encode_chunked=True)
        else:
            connection.request("POST", "/v1/memory/remember", body, headers)
        answer = connection.getresponse()
        assert answer.status == 413
        assert json.loads(answer.read())["error"]["code"] == "too_large"
        connection.close()
    assert read_buffer(build_settings(workspace.root)) == []
