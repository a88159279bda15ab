"""Tending memory: forgetting, correcting, page edits and what changed, composed
once for every surface (CLI, HTTP, MCP, the web tab).

`Tending` is a part of `Memory` (it is mixed into it): each operation is the
library call that changes the files, then a re-index, so what was forgotten
leaves search and the card before the call returns. On a served workspace a
change that takes away (forget, correct, delete, pin) is not embedded on the
request: search and the card follow the files at once (`SearchIndex.follow`)
and the worker re-embeds later, coalesced. Forget is one path
whatever its argument: a promotion id, a curation candidate id, a page fact's
id or text, or a profile line's text — and a profile line leaves its file,
its promotion record and its curation candidates together.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from substrate import Settings, StoreUnavailableError
from substrate.safety import WRITE_ROOM, require_room

if TYPE_CHECKING:
    from substrate import MaintainReport
    from substrate.forgetting import Outcome as Forgetting
    from substrate.sessions import SessionLog


class _Workspace(Protocol):
    settings: Settings

    @property
    def sessions(self) -> SessionLog: ...

    def maintain(self, rebuild: bool = False) -> MaintainReport: ...

    def maintain_after_write(
        self, pages: Collection[str] | None = None, defer: bool = False
    ) -> MaintainReport | None: ...

    def after_forget(self, touched: Sequence[str], sessions: bool) -> None:
        """A forget changed these sessions' messages (`sessions`: whole sessions
        went): what the workspace's host does next (a served one queues a purge)."""


class Tender(Protocol):
    """What every surface can ask to change: `Tending` here, or a running service
    (`cli.target.Remote`) answering the same calls over HTTP."""

    def forget(
        self, what: str, page: str | None = None, every: bool = False, via: str = "library"
    ) -> dict[str, Any]: ...

    def correct(self, fact_id: str, text: str) -> dict[str, Any]: ...

    def lineage(self, what: str) -> dict[str, Any]: ...

    def forget_conversation(
        self, session_id: str | None = None, message_id: int | None = None, via: str = "library"
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
    memory: _Workspace,
    done: dict[str, Any],
    pages: Collection[str] | None = None,
    defer: bool = False,
) -> dict[str, Any]:
    """`done` after the index caught up (with `pages`: the only pages the change
    wrote), or, when it could not (the store is unavailable, the disk filled
    meanwhile), `done` saying so: the change is made, and an error here would
    tell the caller it was not. `defer`: a change that only takes away or
    replaces (forget, correct, delete, pin); a served workspace shows it at once
    through its live view and re-embeds on the worker."""
    try:
        memory.maintain_after_write(pages, defer)
    except StoreUnavailableError as exc:
        done["index"] = (
            f"behind: {exc.message} (the change is made; the next `memory maintain` "
            "brings search and the card up to it)"
        )
    return done


class Tending:
    def forget(
        self: _Workspace,
        what: str,
        page: str | None = None,
        every: bool = False,
        via: str = "library",
    ) -> dict[str, Any]:
        """A promotion id (p-…), a curation candidate id (c-…), a page fact (its id or
        text; `page` narrows, `every` forgets several) or a profile line's text:
        erased, with everything derived only from it (`substrate.forgetting`)."""
        from substrate.forgetting import forget

        _room(self.settings)
        outcome = forget(self.settings, self.sessions, what, page, every, via)
        return _after_forget(self, outcome)

    def forget_conversation(
        self: _Workspace,
        session_id: str | None = None,
        message_id: int | None = None,
        via: str = "library",
    ) -> dict[str, Any]:
        """A whole session, or one message (its session found from the log): it
        leaves the transcript, the log's search, the episodes and every card, and
        so does what was learned only from it; a tombstone keeps which session,
        which message ids, when and through what (no words)."""
        from substrate.forgetting import forget_conversation

        _room(self.settings)
        outcome = forget_conversation(self.settings, self.sessions, session_id, message_id, via)
        return _after_forget(self, outcome)

    def correct(self: _Workspace, fact_id: str, text: str) -> dict[str, Any]:
        """Supersede a page fact with the corrected text (scanned, dated now)."""
        from substrate.consolidation.tending import correct_fact

        _room(self.settings)
        done = correct_fact(self.settings, fact_id, text)
        return _reindexed(self, done, {done["page"]}, defer=True)

    def lineage(self: _Workspace, what: str) -> dict[str, Any]:
        """What an item was derived from, and what was derived from it."""
        from substrate.forgetting import lineage

        return lineage(self.settings, self.sessions, what)

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
        return _reindexed(self, done, defer=True)

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
        return _reindexed(self, done, defer=True)


def _after_forget(memory: _Workspace, outcome: Forgetting) -> dict[str, Any]:
    """What only the service holds, brought up to a forget: the conversation
    state of a forgotten session and every frozen card quoting forgotten words
    dropped, the index re-derived (pages and episodes), a purge queued."""
    from lanes.conversations import ConversationStore

    if outcome.done is None:  # already forgotten: nothing changed
        return outcome.answer
    store = ConversationStore(memory.settings.workspace.state_dir / "conversations")
    for session in outcome.sessions:
        store.drop(session)
    store.forget_cards(outcome.words)
    memory.after_forget(outcome.touched, bool(outcome.sessions))
    return _reindexed(memory, outcome.answer, defer=True)
