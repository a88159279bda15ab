"""What an operator reviews: the facts held by the scanner (and their release),
the model's health and the curation side's counts, composed once for every
surface (CLI, HTTP, MCP, the web tab) as a part of `Memory` (mixed into it)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from substrate import InvalidInputError, Settings

if TYPE_CHECKING:
    from substrate import BufferEntry
    from substrate.llm import ChatClient
    from substrate.sessions import SessionLog


class _Workspace(Protocol):
    settings: Settings
    _opening: threading.Lock
    _llm: ChatClient | None
    _llm_opened: bool

    def _reading_log(self) -> SessionLog: ...

    def model_health(self) -> str: ...


def entry_row(entry: BufferEntry) -> dict[str, Any]:
    from substrate import iso_utc

    return {"id": entry.id, "at": iso_utc(entry.at), "text": entry.text}


def held_json(entry: BufferEntry, settings: Settings) -> dict[str, Any]:
    """A held fact as every surface shows it: what holds it and why (the rules
    asked again; when they pass, only the learned detector can hold it)."""
    verdict = settings.scanner.check(entry.text, "user", learned=False)
    why = verdict.detail if not verdict.ok else "the learned detector reads it as an attack"
    return {**entry_row(entry), "rule": entry.held, "why": why}


def held_rows(settings: Settings) -> list[dict[str, Any]]:
    """The facts held for review, oldest first, each with the scanner's reading
    of it today (what the HTTP route, the CLI and the MCP tool show)."""
    from substrate.intake import held_entries

    return [held_json(e, settings) for e in held_entries(settings)]


def release_held(
    settings: Settings, ids: Sequence[str] = (), every: bool = False
) -> list[dict[str, Any]]:
    """Release held facts (`every`: all of them) so the next consolidation files
    them; an unknown id is refused, naming it, and nothing is released."""
    from substrate.intake import held_entries, release_entries

    chosen = [e.id for e in held_entries(settings)] if every else list(ids)
    if not chosen and not every:
        raise InvalidInputError("name the held entries to release, or ask for all")
    return [entry_row(e) for e in release_entries(settings, chosen)]


class Reviewing:
    def held(self: _Workspace) -> list[dict[str, Any]]:
        return held_rows(self.settings)

    def release(
        self: _Workspace, ids: Sequence[str] = (), every: bool = False
    ) -> list[dict[str, Any]]:
        return release_held(self.settings, ids, every)

    def add_profile_line(
        self: _Workspace,
        text: str,
        file: str = "USER.md",
        confirmed: bool = False,
        via: str = "user",
        proposed: bool = False,
    ) -> dict[str, Any]:
        """A person's own line for a profile file, scanned (`curation.add_line`);
        a line that asks the assistant to act is parked unless `confirmed`, and
        every line an assistant's surface `proposed` is parked."""
        from substrate.curation import add_line

        return add_line(self.settings, file, text, confirmed, via, proposed)

    def pending_lines(self: _Workspace) -> list[dict[str, Any]]:
        """Profile lines parked for the person's confirmation."""
        from substrate.profile.pending import read_pending

        return [row.as_json() for row in read_pending(self.settings.workspace)]

    def confirm_line(self: _Workspace, line_id: str) -> dict[str, Any]:
        """A parked line written: the person confirmed it."""
        from substrate.curation import confirm_line

        return confirm_line(self.settings, line_id)

    def model_health(self: _Workspace) -> str:
        """`not configured`, `ok`, `not used yet`, or `unreachable: why` (the last
        call failed; capture and filing run offline meanwhile). Never calls it."""
        from substrate.llm import resolve_llm

        with self._opening:
            client = self._llm if self._llm_opened else None
        if client is not None:
            return client.health()
        return "not used yet" if resolve_llm(self.settings) is not None else "not configured"

    def status(self: _Workspace) -> dict[str, Any]:
        """Counts only, never transcript text: the log, finalizations, curation
        candidates, promotions and the profile files' use of their budgets."""
        from substrate.curation import CurationStore
        from substrate.llm import resolve_llm
        from substrate.profile import read_profile
        from substrate.promotion import PromotionStore
        from substrate.sessions import finalizations

        log = self._reading_log()
        finals = finalizations.counts(log)
        sessions, messages = log.session_count(), log.count()
        ws = self.settings.workspace
        candidates = Counter(c.status for c in CurationStore.load(ws).candidates)
        promotions = Counter(r.status for r in PromotionStore.load(ws).records.values())
        return {
            "curation_mode": self.settings.tuning.curation_mode,
            "model_configured": resolve_llm(self.settings) is not None,
            "model": self.model_health(),
            "sessions": sessions,
            "messages": messages,
            "finalizations": finals,
            "candidates": dict(sorted(candidates.items())),
            "promotions": dict(sorted(promotions.items())),
            "profile": {
                f.name: {"chars": len(f.text), "budget": f.budget}
                for f in read_profile(self.settings).values()
            },
        }
