"""Isolation as a property: random operations over workspaces that share every
name (page slugs, session ids, fact wordings), through every surface, and no
answer ever holds another workspace's text.

Each workspace's content carries a marker word of its own; everything else
(slugs, session ids, titles, the words of facts and turns) is the same in
all of them, so a leak cannot hide behind a name that only one workspace
uses. A model of what each workspace holds checks that its pages answer
exactly what it wrote. `MEMORY_ISOLATION_OPS` sets the number of operations
(400 by default; the closing note's 10,000 came from
`MEMORY_ISOLATION_OPS=10000 pytest tests/service/tenants/test_isolation.py`).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.service.tenants.served_tenants import create, tenants

WORKSPACES = ("w0", "w1", "w2", "w3")
SLUGS = ("people/joe", "home/plumber", "notes/plan")
SESSIONS = ("s1", "s2")
OPS = int(os.environ.get("MEMORY_ISOLATION_OPS", "400"))


def marker(workspace: str) -> str:
    return f"zq{workspace}mark"


@dataclass
class Model:
    """What the test wrote to a workspace; `filed`: the pages its own
    consolidation made from what it remembered (dated pages under a written
    one), read from its folder."""

    pages: set[str] = field(default_factory=set)
    filed: set[str] = field(default_factory=set)
    trashed: set[str] = field(default_factory=set)
    turns: int = 0
    messages: list[int] = field(default_factory=list)  # logged message ids, oldest first


def page(slug: str, workspace: str, n: int) -> str:
    title = slug.split("/")[-1].capitalize()
    return f"---\ntitle: {title}\n---\nThe plumber {marker(workspace)} fixed the sink, visit {n}."


ROOT: list[Path] = []  # the served folder, set by the test


def filed_pages(workspace: str, written: set[str]) -> set[str]:
    """The workspace's pages on disk that the test did not write itself."""
    concepts = ROOT[0] / workspace / "memory" / "concepts"
    on_disk = {str(p.relative_to(concepts).with_suffix("")) for p in concepts.rglob("*.md")}
    return on_disk - written


def leaked(workspace: str, answer: httpx.Response) -> list[str]:
    """The other workspaces' markers in an answer."""
    text = answer.text
    return [marker(w) for w in WORKSPACES if w != workspace and marker(w) in text]


def operate(
    client: httpx.Client,
    rng: random.Random,
    heads: dict[str, dict[str, str]],
    models: dict[str, Model],
    n: int,
) -> tuple[str, str, httpx.Response]:
    """One random operation in a random workspace: (workspace, what, answer)."""
    w = rng.choice(WORKSPACES)
    head, model, base = heads[w], models[w], f"/w/{w}"
    slug, session = rng.choice(SLUGS), rng.choice(SESSIONS)
    kind = rng.choice(OPERATIONS)
    if kind == "write":
        body = {"slug": slug, "content": page(slug, w, n), "overwrite": True}
        answer = client.post(f"{base}/v1/memory/pages/write", json=body, headers=head)
        assert answer.is_success, answer.text
        model.pages.add(slug)
    elif kind == "read":
        answer = client.get(f"{base}/v1/memory/pages/{slug}", headers=head)
        filed = slug in filed_pages(w, model.pages)  # its own consolidation made it
        assert answer.status_code == (200 if slug in model.pages or filed else 404), answer.text
        assert slug not in model.pages or marker(w) in answer.text
    elif kind == "search":
        model.filed = filed_pages(w, model.pages)
        query = {"query": "plumber sink visit", "k": 10, "kind": rng.choice(["page", "all"])}
        answer = client.post(f"{base}/v1/memory/search", json=query, headers=head)
        found = {h["slug"] for h in answer.json()["hits"] if h["kind"] == "page"}
        assert found <= model.pages | model.filed, (found, model.pages)
    elif kind == "card":
        body = {"message": "who fixed the sink?", "conversation_id": session}
        answer = client.post(f"{base}/v1/memory/card", json=body, headers=head)
        model.turns += 1  # the turn is logged as the person's
    elif kind == "delete" and slug in model.pages:
        answer = client.post(f"{base}/v1/memory/pages/delete", json={"slug": slug}, headers=head)
        assert answer.is_success, answer.text
        model.pages.discard(slug)
        model.trashed.add(slug)
    elif (
        kind == "restore"
        and slug in model.trashed
        and slug not in model.pages | filed_pages(w, model.pages)
    ):
        answer = client.post(f"{base}/v1/memory/pages/restore", json={"name": slug}, headers=head)
        assert answer.is_success, answer.text
        model.pages.add(slug)
        model.trashed.discard(slug)
    elif kind == "remember":
        body = {"text": f"The plumber {marker(w)} likes tea, visit {n}"}
        answer = client.post(f"{base}/v1/memory/remember", json=body, headers=head)
    elif kind == "log":
        body = {"messages": [{"role": "user", "text": f"The plumber {marker(w)} came, visit {n}"}]}
        answer = client.post(f"{base}/v1/conversations/{session}/messages", json=body, headers=head)
        assert answer.is_success, answer.text
        model.turns += 1
        model.messages += answer.json()["ids"]
    elif kind == "session":
        answer = client.get(f"{base}/v1/sessions/{session}", headers=head)
    elif kind == "forget":
        body = {"what": "The plumber likes tea", "all": True}
        answer = client.post(f"{base}/v1/memory/forget", json=body, headers=head)
    elif kind == "profile_line":
        body = {"text": f"Prefers the plumber {marker(w)} on visit {n}", "file": "MEMORY.md"}
        answer = client.post(f"{base}/v1/profile/lines", json=body, headers=head)
    elif kind == "forget_session":
        answer = client.post(f"{base}/v1/conversations/{session}/forget", json={}, headers=head)
    elif kind == "forget_message":  # by its id alone: another workspace's id is not found
        owner = rng.choice(WORKSPACES)
        if models[owner].messages:
            mid = rng.choice(models[owner].messages)
            answer = client.post(f"{base}/v1/messages/{mid}/forget", headers=head)
            if owner != w:
                assert answer.status_code == 404, answer.text
        else:
            answer = client.get(f"{base}/v1/memory/lineage/{session}", headers=head)
    elif kind == "purge":
        answer = client.post(f"{base}/v1/memory/purge", json={}, headers=head)
        assert answer.is_success, answer.text
    elif kind == "cross":  # another workspace's token on this one
        other = rng.choice([v for v in WORKSPACES if v != w])
        answer = client.get(f"{base}/v1/memory/pages/{slug}", headers=heads[other])
        assert answer.status_code == 404
    else:
        path = rng.choice(READS).format(slug=slug, session=session)
        answer = client.get(f"{base}{path}", headers=head)
    return w, kind, answer


OPERATIONS = (
    "write", "write", "read", "search", "search", "card", "delete", "restore", "remember",
    "log", "session", "forget", "forget_session", "cross", "get", "get", "get", "profile_line",
    "forget_message", "forget_message", "purge",
)  # fmt: skip
READS = (
    "/v1/memory/stats", "/v1/memory/held", "/v1/memory/trash", "/v1/memory/facts/{slug}",
    "/v1/memory/history/{slug}", "/v1/sessions", "/v1/memory-graph", "/v1/profile",
    "/v1/promotions", "/v1/curation/review", "/v1/curation/recent", "/v1/memory/problems",
    "/v1/memory/lineage/{session}",
)  # fmt: skip


async def mcp_answers(url: str, head: dict[str, str]) -> list[str]:
    """What the workspace's MCP tools answer over its own endpoint."""
    async with (
        httpx2.AsyncClient(headers=head, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        out = []
        for tool, arguments in (
            ("search", {"query": "plumber sink visit", "k": 10, "kind": "all"}),
            ("list_pages", {}),
            ("read_page", {"slug": SLUGS[0]}),
            ("get_context", {"message": "who fixed the sink?", "conversation_id": "s1"}),
            ("profile", {}),
            ("problems", {}),
            ("held_facts", {}),
            ("list_trash", {}),
        ):
            result = await client.call_tool(tool, arguments)
            out.append(
                json.dumps(result.structured_content)
                + " ".join(getattr(c, "text", "") for c in result.content)
            )
        return out


def test_no_answer_holds_another_workspaces_data(tmp_path: Path) -> None:
    rng = random.Random(48)
    models = {w: Model() for w in WORKSPACES}
    ROOT[:] = [tmp_path]
    with tenants(tmp_path, max_open=3) as (client, _):  # fewer open than served: reopens too
        heads = {w: create(client, w) for w in WORKSPACES}
        kinds: dict[str, int] = {}
        for n in range(OPS):
            w, kind, answer = operate(client, rng, heads, models, n)
            assert answer.status_code < 500, (kind, answer.text)
            assert not leaked(w, answer), (w, kind, answer.text[:500])
            kinds[kind] = kinds.get(kind, 0) + 1
        for w in WORKSPACES:  # every surface once more, and MCP
            for path in READS:
                answer = client.get(
                    f"/w/{w}{path.format(slug=SLUGS[0], session='s1')}", headers=heads[w]
                )
                assert not leaked(w, answer), (w, path, answer.text[:500])
            url = f"{str(client.base_url).rstrip('/')}/w/{w}/mcp"
            for text in asyncio.run(mcp_answers(url, heads[w])):
                assert not [m for v in WORKSPACES if v != w and (m := marker(v)) in text], text[
                    :500
                ]
    assert {"write", "search", "card", "log", "cross", "profile_line"} <= set(kinds)
    assert {"forget_message", "purge"} <= set(kinds)
