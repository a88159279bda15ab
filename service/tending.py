"""Tending memory: forgetting, correcting, page edits and what changed, composed
once for every surface (CLI, HTTP, MCP, the web tab).

`Tending` is a part of `Memory` (it is mixed into it): each operation is the
library call that changes the files, then a re-index, so what was forgotten
leaves search and the card before the call returns. Forget is one path
whatever its argument: a promotion id, a curation candidate id, a page fact's
id or text, or a profile line's text — and a profile line leaves its file,
its promotion record and its curation candidates together.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Protocol

from substrate import InvalidInputError, NotFoundError, Settings, StoreUnavailableError
from substrate.safety import WRITE_ROOM, require_room

if TYPE_CHECKING:
    from substrate import MaintainReport
    from substrate.sessions import SessionLog


class _Workspace(Protocol):
    settings: Settings

    @property
    def sessions(self) -> SessionLog: ...

    def maintain(self, rebuild: bool = False) -> MaintainReport: ...

    def maintain_after_write(
        self, pages: Collection[str] | None = None
    ) -> MaintainReport | None: ...


class Tender(Protocol):
    """What every surface can ask to change: `Tending` here, or a running service
    (`cli.target.Remote`) answering the same calls over HTTP."""

    def forget(self, what: str, page: str | None = None, every: bool = False) -> dict[str, Any]: ...

    def correct(self, fact_id: str, text: str) -> dict[str, Any]: ...

    def forget_conversation(
        self, session_id: str | None = None, message_id: int | None = None
    ) -> dict[str, Any]: ...

    def history(self, what: str) -> dict[str, Any]: ...

    def read_page(self, slug: str) -> dict[str, Any]: ...

    def write_page(
        self,
        slug: str,
        content: str,
        overwrite: bool = False,
        expected_sha256: str | None = None,
    ) -> dict[str, Any]: ...

    def edit_page(
        self,
        slug: str,
        expected_sha256: str,
        new: str,
        old: str | None = None,
        section: str | None = None,
    ) -> dict[str, Any]: ...

    def move_page(self, slug: str, to: str) -> dict[str, Any]: ...

    def delete_page(self, slug: str) -> dict[str, Any]: ...

    def restore_page(self, name: str) -> dict[str, Any]: ...

    def trash(self) -> list[dict[str, Any]]: ...

    def pin_page(self, slug: str, core: bool = True) -> dict[str, Any]: ...


def _room(settings: Settings) -> None:
    """A change of memory/ refused before its first write on a full disk: never
    half made and then answered with an error."""
    require_room(settings.workspace.memory_dir, WRITE_ROOM, "a change of memory/")


def _reindexed(
    memory: _Workspace, done: dict[str, Any], pages: Collection[str] | None = None
) -> dict[str, Any]:
    """`done` after the index caught up (with `pages`: the only pages the change
    wrote), or, when it could not (the store is unavailable, the disk filled
    meanwhile), `done` saying so: the change is made, and an error here would
    tell the caller it was not."""
    try:
        memory.maintain_after_write(pages)
    except StoreUnavailableError as exc:
        done["index"] = (
            f"behind: {exc.message} (the change is made; the next `memory maintain` "
            "brings search and the card up to it)"
        )
    return done


class Tending:
    def forget(
        self: _Workspace, what: str, page: str | None = None, every: bool = False
    ) -> dict[str, Any]:
        """A promotion id (p-…), a curation candidate id (c-…), a page fact (its id or
        text; `page` narrows, `every` forgets several) or a profile line's text."""
        from substrate.consolidation.tending import forget_facts
        from substrate.curation import forget_candidate
        from substrate.promotion import forget_promotion

        if page is None and what.startswith("p-"):
            record = forget_promotion(self.settings, what, time.time())
            return {"forgot": record["id"], "content": record["content"]}
        if page is None and what.startswith("c-"):
            candidate = forget_candidate(self.settings, what)
            return {"forgot": candidate["id"], "content": candidate["text"]}
        _room(self.settings)
        files = [] if page is not None else _forget_profile_line(self.settings, what)
        try:
            facts = forget_facts(self.settings, what, page, every)
        except NotFoundError:
            if not files:
                where = (
                    f"on page {page!r}"
                    if page
                    else "on any page, in the buffer, nor a line in the profile"
                )
                raise NotFoundError(
                    f"nothing to forget: no fact matches {what!r} {where}"
                ) from None
            facts = []
        content = facts[0]["text"] if len(facts) == 1 and not files else what
        done = {"forgot": what, "content": content, "files": files, "facts": facts}
        pages = {f["page"] for f in facts if f["page"] is not None}
        if any(self.sessions.search([f["text"]], limit=1) for f in facts):
            return _reindexed(self, done)  # a conversation said it: its episodes are cut again
        return _reindexed(self, done, pages) if pages else done

    def forget_conversation(
        self: _Workspace, session_id: str | None = None, message_id: int | None = None
    ) -> dict[str, Any]:
        """A whole session, or one message: it leaves the transcript, the log's
        search, the episodes in the index and so every card; the decision log
        keeps a tombstone (which session, which message ids, when; no text)."""
        from substrate.consolidation.log import record_change

        log = self.sessions
        if message_id is not None:
            found = log.session_of(message_id)
            if found is None or (session_id is not None and found != session_id):
                raise NotFoundError(f"no logged message {message_id}")
            session_id = found
        if session_id is None:
            raise InvalidInputError("name a session or a message to forget")
        _room(self.settings)
        gone = log.forget(session_id, None if message_id is None else {message_id})
        if not gone:
            raise NotFoundError(f"no logged session {session_id!r} with messages")
        from lanes.conversations import ConversationStore

        ConversationStore(self.settings.workspace.state_dir / "conversations").drop(session_id)
        op = "forget_session" if message_id is None else "forget_message"
        record_change(
            self.settings, {"at": time.time(), "op": op, "session": session_id, "messages": gone}
        )
        done = {"forgot": op.removeprefix("forget_"), "session": session_id, "messages": gone}
        return _reindexed(self, done)

    def correct(self: _Workspace, fact_id: str, text: str) -> dict[str, Any]:
        """Supersede a page fact with the corrected text (scanned, dated now)."""
        from substrate.consolidation.tending import correct_fact

        _room(self.settings)
        done = correct_fact(self.settings, fact_id, text)
        return _reindexed(self, done, {done["page"]})

    def history(self: _Workspace, what: str) -> dict[str, Any]:
        """What changed on a page, or about a fact, and through what."""
        from substrate.consolidation.tending import history

        return history(self.settings, what)

    def read_page(self: _Workspace, slug: str) -> dict[str, Any]:
        """A page's text and content hash (what an edit names as its precondition)."""
        from ingest.page_ops import read_page

        return read_page(self.settings, slug)

    def write_page(
        self: _Workspace,
        slug: str,
        content: str,
        overwrite: bool = False,
        expected_sha256: str | None = None,
    ) -> dict[str, Any]:
        """Create a page, or replace it (`overwrite`)."""
        from ingest.page_ops import write_page

        _room(self.settings)
        done = write_page(self.settings, slug, content, overwrite, expected_sha256)
        return _reindexed(self, done)

    def edit_page(
        self: _Workspace,
        slug: str,
        expected_sha256: str,
        new: str,
        old: str | None = None,
        section: str | None = None,
    ) -> dict[str, Any]:
        """Replace a span (`old`) or a section's body (`section`) with `new`."""
        from ingest.page_ops import Edit, edit_page

        _room(self.settings)
        done = edit_page(self.settings, slug, expected_sha256, Edit(new, old, section))
        return _reindexed(self, done)

    def move_page(self: _Workspace, slug: str, to: str) -> dict[str, Any]:
        from ingest.page_ops import move_page

        _room(self.settings)
        done = move_page(self.settings, slug, to)
        return _reindexed(self, done)

    def delete_page(self: _Workspace, slug: str) -> dict[str, Any]:
        """Into the trash under `memory/trash/`; `restore_page` brings it back."""
        from ingest.page_ops import delete_page

        _room(self.settings)
        done = delete_page(self.settings, slug)
        return _reindexed(self, done)

    def restore_page(self: _Workspace, name: str) -> dict[str, Any]:
        from ingest.page_ops import restore_page

        _room(self.settings)
        done = restore_page(self.settings, name)
        return _reindexed(self, done)

    def trash(self: _Workspace) -> list[dict[str, Any]]:
        from ingest.page_ops import trash

        return trash(self.settings)

    def pin_page(self: _Workspace, slug: str, core: bool = True) -> dict[str, Any]:
        """Mark a page as core (on every card's core lane), or not."""
        from ingest.page_ops import pin_page

        _room(self.settings)
        done = pin_page(self.settings, slug, core)
        return _reindexed(self, done)


def _forget_profile_line(settings: Settings, text: str) -> list[str]:
    """The profile files a line left: its promotion record forgotten (which takes
    the line out), then the line itself and the curation candidates that wrote
    it. None when no record and no line hold it."""
    from substrate.curation import forget_text
    from substrate.promotion import PromotionStore, file_for, forget_promotion

    content = " ".join(text.removeprefix("- ").split())
    if not content:
        raise InvalidInputError("name what to forget: an id or a text")
    files: list[str] = []
    for record in PromotionStore.load(settings.workspace).active():
        if " ".join(record.content.split()).casefold() == content.casefold():
            forget_promotion(settings, record.id, time.time())
            files.append(file_for(record.kind))
    with contextlib.suppress(NotFoundError):  # no line: the page facts may hold it
        files += forget_text(settings, content, missing_ok=bool(files))
    return sorted(set(files))
