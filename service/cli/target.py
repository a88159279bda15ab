"""Where a command's work happens: in this process over the workspace, or through
the running service that owns the workspace's index.

Commands ask `target_for(...)` once and call the same methods either way, so
each command has one code path and prints the same thing whichever ran it.
While `memory serve` runs, the embedded index belongs to that process, so
index work must go through it; `--url` points at any other service.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import click

from service.cli.base import ProgressBar
from service.discovery import running_service
from service.memory import Capabilities, Ingested, Memory, ProgressFn, Target
from service.settings_loader import build_settings, service_token
from substrate import InvalidInputError, MemoryServiceError, open_workspace

if TYPE_CHECKING:  # the index room, ingest and the HTTP client: loaded when used
    from ingest import IngestOptions, Source, StagedPage
    from service.client import ServiceClient
    from substrate import BufferEntry, MaintainReport


def target_for(workspace: Path, url: str | None, capabilities: Capabilities) -> Target:
    """The service when one owns this workspace (or `url` names one), else this
    process's `Memory` over the workspace."""
    if not url:
        found = running_service(open_workspace(workspace))
        url = found.url if found else None
    ctx = click.get_current_context()
    if url is None:
        return local_memory(workspace, capabilities)
    from service.client import ServiceClient

    client = ServiceClient(url, service_token())
    ctx.call_on_close(client.close)  # its pooled connections
    return Remote(client, workspace)


class ServedElsewhereError(MemoryServiceError):
    """A command that would write the workspace in this process while a service
    owns it, and that the service has no route for: refused (exit 64), since a
    second writer of the embedded store breaks the service's index."""

    exit_code = 64
    code = "served_elsewhere"


def served_client(workspace: Path, as_person: bool = False) -> ServiceClient | None:
    """A client of the service that owns `workspace` (closed with the command), or
    None when none runs: a command that writes goes through it. `as_person`: it
    also sends the person key the workspace keeps (`service.person`), which a
    terminal can read and an assistant's token is not."""
    opened = open_workspace(workspace)
    found = running_service(opened)
    if found is None:
        return None
    from service.client import ServiceClient
    from service.person import person_key

    key = person_key(opened.state_dir) if as_person else None
    client = ServiceClient(found.url, service_token(), person=key)
    click.get_current_context().call_on_close(client.close)
    return client


def refuse_while_served(workspace: Path, command: str) -> None:
    """`command` writes locally and the service has no route for it: refused while
    a service owns the workspace, naming it."""
    found = running_service(open_workspace(workspace))
    if found is not None:
        raise ServedElsewhereError(
            f"`memory {command}` would write this workspace beside the memory service that "
            f"owns it ({found.url}, pid {found.pid}); stop the service, or do this through it"
        )


def local_memory(workspace: Path, capabilities: Capabilities = list) -> Memory:
    """The workspace in this process, with progress bars on a terminal; closed with
    the command."""
    memory = Memory(build_settings(workspace), capabilities, progress=progress_bar)
    click.get_current_context().call_on_close(memory.close)
    return memory


@contextmanager
def progress_bar(label: str) -> Iterator[ProgressFn]:
    with ProgressBar(label) as bar:
        yield bar.update


class Remote:
    """The running service, over HTTP; its errors come back as the same
    `MemoryServiceError`s the library raises."""

    def __init__(self, client: ServiceClient, workspace: Path) -> None:
        self._client = client
        self._workspace = workspace

    def remember(
        self, text: str, hints: Sequence[str] = (), at: datetime | None = None
    ) -> BufferEntry:
        from substrate import BufferEntry
        from substrate.intake import parse_at
        from substrate.intake.buffer import HELD

        body: dict[str, Any] = {"text": text, "hints": list(hints)}
        if at is not None:
            body["at"] = at.isoformat()
        answer = self._client.post("/v1/memory/remember", body)
        held = answer.get("held")
        review = f"{HELD}{held}" if held else None
        moment = parse_at(answer["at"])
        return BufferEntry(
            str(answer["id"]), moment, str(answer["text"]), None, review, answer.get("why")
        )

    def consolidate(self, dry_run: bool = False, limit: int | None = None) -> dict[str, Any]:
        body = {"dry_run": dry_run, "limit": limit, "wait": True}
        answer: dict[str, Any] = self._client.post("/v1/consolidation/run-now", body)
        if answer.get("error"):
            raise MemoryServiceError(f"consolidation failed: {answer['error']}")
        outcome: dict[str, Any] = answer.get("outcome") or {}
        return outcome

    def explain(self, entry_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._client.get(f"/v1/consolidation/explain/{entry_id}")
        return found

    def maintain(self, rebuild: bool = False) -> MaintainReport:
        from substrate import MaintainReport

        return MaintainReport(**self._client.post("/v1/memory/maintain", {"rebuild": rebuild}))

    def search(
        self, query: str, k: int = 10, capabilities: bool = False, kind: str = "all"
    ) -> list[dict[str, Any]]:
        body = {"query": query, "k": k, "capabilities": capabilities, "kind": kind}
        hits: list[dict[str, Any]] = self._client.post("/v1/memory/search", body)["hits"]
        return hits

    def card(
        self, message: str, conversation_id: str | None = None, voice: bool = False
    ) -> dict[str, Any]:
        body = {"message": message, "conversation_id": conversation_id, "voice_front_door": voice}
        result: dict[str, Any] = self._client.post("/v1/memory/card", body)
        return result

    def forget(
        self, what: str, page: str | None = None, every: bool = False, via: str = "cli"
    ) -> dict[str, Any]:
        return self._post("forget", {"what": what, "page": page, "all": every})

    def forget_conversation(
        self, session_id: str | None = None, message_id: int | None = None, via: str = "cli"
    ) -> dict[str, Any]:
        """A session, or one message: the service finds the message's session."""
        done: dict[str, Any]
        if session_id is None:
            if message_id is None:
                raise InvalidInputError("name a session or a message to forget")
            done = self._client.post(f"/v1/messages/{message_id}/forget", {})
            return done
        body = {"message_id": message_id}
        done = self._client.post(f"/v1/conversations/{quote(session_id, safe='')}/forget", body)
        return done

    def correct(self, fact_id: str, text: str) -> dict[str, Any]:
        return self._post("correct", {"fact_id": fact_id, "text": text})

    def purge(self, trash: bool = False) -> dict[str, Any]:
        return self._post("purge", {"trash": trash})

    def history(self, what: str) -> dict[str, Any]:
        found: dict[str, Any] = self._client.get(f"/v1/memory/history/{quote(what)}")
        return found

    def lineage(self, what: str) -> dict[str, Any]:
        found: dict[str, Any] = self._client.get(f"/v1/memory/lineage/{quote(what, safe='')}")
        return found

    def read_page(self, slug: str) -> dict[str, Any]:
        found: dict[str, Any] = self._client.get(f"/v1/memory/pages/{quote(slug)}")
        return found

    def write_page(
        self,
        slug: str,
        content: str,
        overwrite: bool = False,
        expected_sha256: str | None = None,
    ) -> dict[str, Any]:
        body = {"slug": slug, "content": content, "overwrite": overwrite}
        return self._post("pages/write", {**body, "expected_sha256": expected_sha256})

    def edit_page(
        self,
        slug: str,
        expected_sha256: str,
        new: str,
        old: str | None = None,
        section: str | None = None,
    ) -> dict[str, Any]:
        body = {"slug": slug, "expected_sha256": expected_sha256, "new": new}
        return self._post("pages/edit", {**body, "old": old, "section": section})

    def move_page(self, slug: str, to: str) -> dict[str, Any]:
        return self._post("pages/move", {"slug": slug, "to": to})

    def delete_page(self, slug: str) -> dict[str, Any]:
        return self._post("pages/delete", {"slug": slug})

    def restore_page(self, name: str) -> dict[str, Any]:
        return self._post("pages/restore", {"name": name})

    def trash(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._client.get("/v1/memory/trash")["trash"]
        return found

    def pin_page(self, slug: str, core: bool = True) -> dict[str, Any]:
        return self._post("pages/pin", {"slug": slug, "core": core})

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.post(f"/v1/memory/{path}", body)
        return answer

    def ingest(self, source: Source, options: IngestOptions) -> Ingested:
        """Pages are read here (so a staging folder on this machine works against any
        service) and sent inline, one batch per request."""
        from ingest import IngestReport, PageResult
        from substrate import MaintainReport
        from substrate.pages import decode_page

        cap = build_settings(self._workspace).tuning.ingest_max_page_bytes
        results: list[PageResult] = []
        indexed: MaintainReport | None = None
        index_error: str | None = None
        ready: list[tuple[StagedPage, str]] = []
        for staged in source.pages():
            try:
                if staged.read is None:
                    raise InvalidInputError(staged.problem or "unreadable entry")
                ready.append((staged, decode_page(staged.read(cap))))
            except (MemoryServiceError, OSError) as exc:
                message = exc.message if isinstance(exc, MemoryServiceError) else str(exc)
                results.append(PageResult(staged.slug, staged.where, "failed", error=message))
        with ProgressBar("ingesting pages") as bar:
            for start in range(0, len(ready), options.batch_size):
                batch = ready[start : start + options.batch_size]
                doc = self._client.post("/v1/memory/ingest", _ingest_body(batch, options))
                for (staged, _), row in zip(batch, doc["pages"], strict=True):
                    results.append(PageResult(**{**row, "where": staged.where}))
                if doc.get("index"):
                    indexed = MaintainReport(**doc["index"])
                index_error = doc.get("index_error") or index_error
                bar.update(start + len(batch), len(ready))
        label = f"{source.name} via {self._client.url}"
        return Ingested(IngestReport(label, options.dry_run, results), indexed, index_error)


def _ingest_body(batch: list[tuple[StagedPage, str]], options: IngestOptions) -> dict[str, Any]:
    return {
        "pages": [{"slug": staged.slug, "content": text} for staged, text in batch],
        "dry_run": options.dry_run,
        "overwrite": options.overwrite,
        "source": options.source,
    }
