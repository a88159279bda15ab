"""A forget, whole: what the person named, and everything derived only from it.

`forget` (a fact, by id or words; a profile line; a promotion or curation
candidate id) and `forget_conversation` (a session, or one message) resolve
what is named, write the work order (`orders`), then run it in parts, each
one journaled change under its own locks, all under the workspace's forget
lock (so two forgets never interleave):

1. the log (`sessions.erasure`): forgotten sessions and messages leave their
   transcripts and the database, with their tombstones;
2. the facts (`facts`): the named facts, and the captured facts the lineage
   walk (`walk`) finds derived only from forgotten messages, leave their pages,
   the buffer, the archive, the trash and the decision log; what they
   replaced gets its slot back;
3. the log again: the words of a named fact are cut out of every message
   that said them (its sources, and any other that holds them);
4. the profile (`profile`): named lines, promotions and candidates, and the
   promotions and candidates whose evidence was forgotten.

Every part finds what is left to do from the files as they are, so an order
run again (a kill midway; `finish_orders`) completes it and changes nothing
more. The answer says what went (with the words, for the person asking:
nothing the product writes keeps them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from substrate.config import Settings
from substrate.consolidation.log import changes_journal, recover_changes
from substrate.consolidation.tending import find_buffered, find_facts
from substrate.curation.operations import WRITABLE
from substrate.curation.store import CurationStore
from substrate.errors import InvalidInputError, NotFoundError
from substrate.forgetting.facts import FactsErased, erase_facts, trash_pages
from substrate.forgetting.orders import (
    SURFACES,
    Order,
    drop_order,
    new_order_id,
    pending_orders,
    write_order,
)
from substrate.forgetting.profile import ProfileErased, erase_profile
from substrate.forgetting.walk import Reached, captured_lineage, facts_reached
from substrate.lineage import (
    MESSAGE_ID_LIMIT,
    Row,
    fingerprint,
    message_fingerprint,
    message_piece_prints,
    message_word_print,
    read_tombstones,
    tombstone_step,
    when,
)
from substrate.pages import fact_bullets, fold, fresh_pages
from substrate.pages.facts import is_entry_id
from substrate.profile import profile_path
from substrate.profile.pending import drop_text
from substrate.promotion import PromotionStore
from substrate.safety import hold_lock, journal, read_text_file, read_text_snapshot
from substrate.sessions import SessionLog, check_session_id
from substrate.sessions.erasure import Erased, Erasure

LOCK_TIMEOUT_S = 120.0
LISTED = 10  # matches named in a refusal
SCAN_SAID = 200  # messages read when looking for where a forgotten fact was said


def forget_lock_path(settings: Settings) -> Path:
    return settings.workspace.state_dir / "forget.lock"


@contextmanager
def forget_lock(settings: Settings) -> Iterator[None]:
    """The workspace's forget lock, with any forget a killed process left
    finished first (taken before any other lock a forget needs)."""
    with hold_lock(forget_lock_path(settings), timeout_s=LOCK_TIMEOUT_S, purpose="forget"):
        yield


@dataclass
class Forgotten:
    """What one order took out."""

    order: Order
    log: list[Erased] = field(default_factory=list)
    facts: FactsErased = field(default_factory=FactsErased)
    reached: Reached = field(default_factory=Reached)
    redacted: list[Erased] = field(default_factory=list)
    profile: ProfileErased = field(default_factory=ProfileErased)

    def derived_json(self) -> dict[str, Any]:
        """What the forget took along (ids only)."""
        named = set(self.order.facts)
        return {
            "facts": sorted({str(r["id"]) for r in self.facts.erased} - named),
            "repointed": sorted(self.reached.repoint),
            "restored": sorted(self.facts.restored),
            "pages_removed": len(self.facts.removed),
            "promotions": self.profile.promotions + self.profile.withdrawn,
            "reactivated": self.profile.reactivated,
            "candidates": self.profile.candidates,
            "messages_redacted": sorted({e.id for e in self.redacted}),
        }


@dataclass(frozen=True)
class Outcome:
    """A forget's answer (`answer`, what every surface returns) and what the
    service must still take out of its own derived state: the `words` that went
    (frozen cards quoting them), the `sessions` forgotten whole."""

    answer: dict[str, Any]
    words: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)  # sessions whose messages changed
    done: Forgotten | None = None


def _outcome(answer: dict[str, Any], done: Forgotten | None) -> Outcome:
    if done is None:
        return Outcome(answer)
    words = [str(r["text"]) for r in done.facts.erased if r["text"]]
    words += [e.text for e in [*done.log, *done.redacted]]
    words += list(done.order.lines) + [t for t in done.order.texts.values() if t]
    touched = sorted({e.session_id for e in [*done.log, *done.redacted]})
    return Outcome(answer, list(dict.fromkeys(words)), list(done.order.sessions), touched, done)


def check_message_id(value: int) -> int:
    """A message id as the log keeps it: 1 ≤ id < 2^63."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < MESSAGE_ID_LIMIT:
        raise InvalidInputError(
            f"message id: {str(value)[:40]} is not a message id (an integer 1 ≤ id < 2^63, "
            "as `memory sessions show` lists them)"
        )
    return value


def _surface(via: str) -> str:
    if via not in SURFACES:
        raise InvalidInputError(f"via: {via!r} is not one of {', '.join(SURFACES)}")
    return via


def forget(
    settings: Settings,
    log: SessionLog,
    what: str,
    page: str | None = None,
    every: bool = False,
    via: str = "library",
    now: float | None = None,
) -> Outcome:
    """Forget what `what` names: a promotion id (p-…), a curation candidate id
    (c-…), page facts and buffered facts (an id, or words: several only with
    `every`), and a profile line of those words. Answers "already forgotten"
    for what a tombstone says went; `NotFoundError` when nothing matches.
    `now`: when the tombstone says it happened (the clock's, by default)."""
    _surface(via)
    what = what.strip()
    if not what:
        raise InvalidInputError("name what to forget: an id or a text")
    parked = drop_text(settings, what) if page is None else []  # lines never written
    nothing = _resolve(settings, what, page, every, via, now, wait=False) is None
    if nothing and parked:
        return Outcome({"forgot": named(what), "pending_lines": parked, "facts": [], "files": []})
    if nothing and not pending_orders(settings.workspace):
        # Nothing to forget: answered without waiting for the locks, which a
        # forget of something holds through a consolidation run (nor for a
        # page rescan: the pages as last scanned). A fact filed a moment after
        # this look was filed after this forget.
        return Outcome(_already_or_missing(settings, what, page))
    with forget_lock(settings):
        _finish(settings, log)
        order = _resolve(settings, what, page, every, via, now)
        if order is None:
            return Outcome(_already_or_missing(settings, what, page))
        done = run_order(settings, log, order)
    return _outcome(_answer(what, done), done)


def _resolve(
    settings: Settings,
    what: str,
    page: str | None,
    every: bool,
    via: str,
    now: float | None,
    wait: bool = True,
) -> Order | None:
    order = Order(new_order_id(), time.time() if now is None else now, via)
    if page is None and what.startswith("p-"):
        record = next(
            (r for r in PromotionStore.load(settings.workspace).records.values() if r.id == what),
            None,
        )
        if record is None:
            return None
        order.promotions.append(what)
        order.texts[what] = record.content
        return order
    if page is None and what.startswith("c-"):
        candidate = next(
            (c for c in CurationStore.load(settings.workspace).candidates if c.id == what), None
        )
        if candidate is None:
            return None
        order.candidates.append(what)
        order.texts[what] = str(candidate.fact.get("text", ""))
        return order
    if page is None and not is_entry_id(what) and _profile_line(settings, what):
        order.lines.append(" ".join(what.removeprefix("- ").split()))
    try:
        matches = _matches(settings, what, page, wait)
    except InvalidInputError:
        if not order.lines:
            raise  # too short to name a fact, and no profile line of these words
        matches = []
    named = {m["id"] for m in matches}
    if len(named) > 1 and not every:
        raise InvalidInputError(_several(what, matches))
    for m in matches:
        order.facts.append(m["id"])
        order.texts[m["id"]] = m["text"]
        order.said[m["id"]] = m["sources"]
    if not order.facts and not order.lines:
        return None
    return order


def _matches(
    settings: Settings, what: str, page: str | None, wait: bool = True
) -> list[dict[str, Any]]:
    """The page facts and buffered facts `what` names (a fact too short to
    name by words names nothing, and a profile line may still match). `wait`
    False: a first look, on the pages as last scanned if a scan is running."""
    pages = fresh_pages(settings.workspace, wait)
    on_pages = find_facts(settings, what, page, legacy=True, pages=pages)
    found: list[dict[str, Any]] = [
        {
            "id": m.bullet.entry_id,
            "page": m.slug,
            "text": m.bullet.text,
            "sources": list(m.bullet.sources),
        }
        for m in on_pages
        if m.bullet.entry_id
    ]
    if page is None and not (found and is_entry_id(what)):  # an id names one fact
        found += [
            {"id": e.id, "page": None, "text": e.text, "sources": list(e.sources)}
            for e in find_buffered(settings, what)
        ]
    if not found and page is None:  # only in a page in the trash: erased there
        found += _in_trash(settings, what)
    return found


def _in_trash(settings: Settings, what: str) -> list[dict[str, Any]]:
    """The facts of pages in the trash that `what` names, as `find_facts` names them."""
    wanted = fold(what).casefold()
    out: list[dict[str, Any]] = []
    for path in trash_pages(settings):
        text, _ = read_text_snapshot(path)
        for b in fact_bullets(text):
            named = b.entry_id == what.strip() or fold(b.text).casefold() == wanted
            if named and b.entry_id:
                out.append(
                    {"id": b.entry_id, "page": None, "text": b.text, "sources": list(b.sources)}
                )
    return out


def _profile_line(settings: Settings, what: str) -> bool:
    content = " ".join(what.removeprefix("- ").split())
    for name in WRITABLE:
        text = read_text_file(profile_path(settings.workspace, name)) or ""
        if f"- {content}" in text.splitlines():
            return True
    active = PromotionStore.load(settings.workspace).active()
    return any(fold(r.content).casefold() == content.casefold() for r in active)


def _already_or_missing(settings: Settings, what: str, page: str | None) -> dict[str, Any]:
    graves = read_tombstones(settings.workspace)
    row: Row | None = graves.facts.get(what) or graves.records.get(what)
    if row is None:
        row = graves.fingerprints.get(fingerprint(settings.workspace, what.removeprefix("- ")))
    if row is not None:
        return {"forgot": named(what), "already_forgotten": when(row), "facts": [], "files": []}
    if page is None and what.startswith("p-"):
        raise NotFoundError(f"no promotion {what!r} (see `memory promotions`)")
    if page is None and what.startswith("c-"):
        raise NotFoundError(f"no curation candidate {what!r} (see `memory review`)")
    where = f"on page {page!r}" if page else "on any page, in the buffer, nor a line in the profile"
    raise NotFoundError(f"nothing to forget: no fact matches {what!r} {where}")


def _several(what: str, matches: list[dict[str, Any]]) -> str:
    named = [
        f"{m['id']} {'on ' + m['page'] if m['page'] else 'in the buffer'}: {fold(m['text'])[:60]}"
        for m in matches
    ]
    shown = "; ".join(named[:LISTED])
    more = f" (and {len(named) - LISTED} more)" if len(named) > LISTED else ""
    return (
        f"{len(named)} facts match {what!r}: {shown}{more}; name one by its id, narrow "
        "with --page, or forget them all with --all"
    )


def forget_conversation(
    settings: Settings,
    log: SessionLog,
    session_id: str | None = None,
    message_id: int | None = None,
    via: str = "library",
) -> Outcome:
    """Forget a whole logged session, or one message (its session found from
    the log; `session_id`, when given too, must be it), and what was derived
    only from it."""
    _surface(via)
    if message_id is not None:
        check_message_id(message_id)
    if session_id is not None:
        check_session_id(session_id)
    if session_id is None and message_id is None:
        raise InvalidInputError("name a session or a message to forget")
    with forget_lock(settings):
        _finish(settings, log)
        graves = read_tombstones(settings.workspace)
        if message_id is not None:
            found = log.session_of(message_id)
            if found is None:
                if message_id in graves.messages:
                    row = graves.messages[message_id]
                    return Outcome(_already(row, "message", session_id, message_id))
                raise NotFoundError(f"no logged message {message_id}")
            if session_id is not None and found != session_id:
                raise NotFoundError(f"no logged message {message_id} in session {session_id!r}")
            session_id = found
        assert session_id is not None
        ids = [m.id for m in log.messages(session_id)] if message_id is None else [message_id]
        if not ids:
            if session_id in graves.sessions:
                return Outcome(_already(graves.sessions[session_id], "session", session_id, None))
            raise NotFoundError(f"no logged session {session_id!r} with messages")
        order = Order(new_order_id(), time.time(), via, messages=ids)
        if message_id is None:
            order.sessions.append(session_id)
        order.captured = captured_lineage(settings, [session_id])
        done = run_order(settings, log, order)
    kind = "session" if message_id is None else "message"
    answer = {
        "forgot": kind,
        "session": session_id,
        "messages": sorted(e.id for e in done.log if not e.redacted),
        "derived": done.derived_json(),
    }
    return _outcome(answer, done)


def _already(row: Row, kind: str, session: str | None, message: int | None) -> dict[str, Any]:
    ids = [message] if message is not None else list(row.get("messages", []))
    return {
        "forgot": kind,
        "session": row.get("session", session),
        "messages": ids,
        "already_forgotten": when(row),
    }


def run_order(settings: Settings, log: SessionLog, order: Order) -> Forgotten:
    """Write the order, run each part, drop it (see the module doc). Call
    under the forget lock. An order of facts alone, with no message to cut
    them out of, is one journaled change: it needs no order on disk."""
    if order.redact is None:
        order.redact = _said(settings, log, order)
    parts = bool(order.messages or order.sessions or order.redact)
    parts |= bool(order.lines or order.promotions or order.candidates)
    if parts:
        write_order(settings.workspace, order)
    done = Forgotten(order)
    gone = set(order.messages)
    if gone or order.sessions:
        erasure = Erasure(frozenset(order.sessions), frozenset(gone))
        done.log = log.erase(erasure, lambda erased: _log_grave(settings, order, erased))
    done.reached = facts_reached(settings, log, gone, order.captured) if gone else Reached()
    order.texts.update({i: t for i, t in done.reached.facts.items() if i not in order.texts})
    facts = [*order.facts, *(i for i in done.reached.facts if i not in order.facts)]
    done.facts = erase_facts(settings, order, facts, done.reached.repoint)
    said = order.redact
    if said:
        cut = Erasure(redactions=tuple(said))
        done.redacted = log.erase(cut, lambda erased: _cut_grave(settings, order, erased, said))
    touched = set(order.sessions) | set(order.touched) | {e.session_id for e in done.log}
    if order.lines or order.promotions or order.candidates or gone:
        done.profile = erase_profile(settings, log, order, touched, gone)
    if parts:
        drop_order(settings.workspace, order)
    return done


def _said(settings: Settings, log: SessionLog, order: Order) -> list[tuple[int, str]]:
    """(message, words) for every logged message that said a named fact: its
    sources, and any other holding its words."""
    out: dict[tuple[int, str], None] = {}
    for fact in order.facts:
        words = order.texts.get(fact, "")
        for source in order.said.get(fact, []):
            out[(source, words)] = None
        if len(fold(words)) < 3:
            continue
        for found in log.search([words], limit=SCAN_SAID):
            if fold(words).casefold() in fold(found.text).casefold():
                out[(found.id, words)] = None
    return list(out)


def _log_grave(settings: Settings, order: Order, erased: list[Erased]) -> journal.Step | None:
    """The tombstones of messages and sessions a forget erased."""
    rows = _message_rows(settings, order, "message", erased)
    for session in order.sessions:
        ids = sorted(e.id for e in erased if e.session_id == session)
        rows.append({"kind": "session", "session": session, "messages": ids, **_stamp(order)})
    return tombstone_step(settings.workspace, order.id, "log", order.at, rows)


def _cut_grave(
    settings: Settings, order: Order, erased: list[Erased], said: list[tuple[int, str]]
) -> journal.Step | None:
    """The tombstones of messages a forgotten fact's words were cut out of."""
    facts = {m: f for f in order.facts for m in order.said.get(f, [])}
    rows = _message_rows(settings, order, "redaction", erased)
    for row in rows:
        if row["id"] in facts:
            row["fact"] = facts[row["id"]]
    return tombstone_step(settings.workspace, order.id, "said", order.at, rows)


def _message_rows(settings: Settings, order: Order, kind: str, erased: list[Erased]) -> list[Row]:
    """A tombstone row per message as it was: its id, session and fingerprint."""
    ws = settings.workspace
    return [
        {
            "kind": kind,
            "id": e.id,
            "session": e.session_id,
            "fingerprint": message_fingerprint(ws, e.session_id, e.role, e.at, e.text),
            "words": message_word_print(ws, e.role, e.at, e.text),
            "pieces": message_piece_prints(ws, e.role, e.at, e.text),
            **_stamp(order),
        }
        for e in erased
    ]


def _stamp(order: Order) -> Row:
    return {"at": order.at, "via": order.via, "order": order.id}


def _answer(what: str, done: Forgotten) -> dict[str, Any]:
    """What a forget says went: ids, pages and files, never the words (the
    answer travels to whoever asked, a replay store, an assistant's log)."""
    facts = [
        {"id": r["id"], "page": r["page"], **({"buffer": True} if r["buffer"] else {})}
        for r in done.facts.erased
        if r["id"] in done.order.facts and r["text"]
    ]
    files = sorted(set(done.profile.files))
    if done.order.promotions or done.order.candidates:
        ident = (done.order.promotions + done.order.candidates)[0]
        return {"forgot": ident, "files": files, "facts": [], "derived": done.derived_json()}
    return {"forgot": named(what), "files": files, "facts": facts, "derived": done.derived_json()}


def named(what: str) -> str:
    """`what` when it is an id (a fact's, a promotion's, a candidate's), else
    `"text"`: a forget by its words answers without them."""
    if is_entry_id(what) or (what[:2] in ("p-", "c-") and what.replace("-", "").isalnum()):
        return what
    return "text"


def _finish(settings: Settings, log: SessionLog) -> list[Forgotten]:
    """Finish what a killed forget left (under the forget lock): a change of the
    pages half made (a forget of facts alone is that change, with no order),
    then every order."""
    if changes_journal(settings).exists():
        with hold_lock(
            settings.workspace.consolidation_lock_path, timeout_s=LOCK_TIMEOUT_S, purpose="forget"
        ):
            recover_changes(settings)
    return [run_order(settings, log, order) for order in pending_orders(settings.workspace)]


def finish_orders(settings: Settings, log: SessionLog) -> int:
    """Finish the forgets a killed process left; how many orders. Takes the
    forget lock (a forget running now finishes them itself)."""
    if not pending_orders(settings.workspace) and not changes_journal(settings).exists():
        return 0
    with forget_lock(settings):
        return len(_finish(settings, log))
