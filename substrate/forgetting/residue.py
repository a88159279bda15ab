"""What `memory doctor` proves about forgetting: nothing left of the forgotten.

`forgotten_residue` is any of:

- a forget a killed process left half done (its work order);
- a live record whose lineage reaches a forgotten source: a captured fact
  drawn from a forgotten message, a promotion or a curation candidate with a
  forgotten message (or session) among its evidence;
- a forgotten fact still in a product file: on a page, in the buffer, the
  archive or the trash, by its id or by the keyed fingerprint of its words;
- a forgotten message back in the log (a transcript restored by hand);
- what an older release kept of a forget: a fact left on its page marked
  forgotten, a decision log row carrying a forgotten fact's words.

`finish` runs the forget again for all of it: one order over the facts and
messages found, and the orders left behind.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from substrate.config import Settings
from substrate.consolidation.log import rows
from substrate.consolidation.tending import forgotten
from substrate.curation.store import CurationStore
from substrate.forgetting.cascade import finish_orders, forget_lock, run_order
from substrate.forgetting.facts import trash_pages
from substrate.forgetting.orders import Order, new_order_id, pending_orders
from substrate.intake import parse_buffer, read_buffer
from substrate.lineage import (
    Tombstones,
    fingerprint,
    message_fingerprint,
    message_word_prints,
    read_tombstones,
)
from substrate.pages import PageIndex, fact_bullets, load_page_index
from substrate.promotion import PromotionStore
from substrate.safety import read_text_snapshot
from substrate.sessions import SessionLog


@dataclass(frozen=True)
class Residue:
    """One thing left of a forgotten item: what it is (no words of it), and what
    finishing takes: a fact id, a forgotten message id, or an order."""

    message: str
    kind: str  # fact | message | order | evidence
    ident: str
    session: str | None = None
    words: str = field(default="", repr=False)  # a fact's, to cut them out wherever they are


def find_residue(
    settings: Settings, log: SessionLog, index: PageIndex | None = None
) -> list[Residue]:
    """Everything left of forgotten items (see the module doc). `index`: the
    pages as the caller read them (a checkup writes nothing, not even the
    page cache)."""
    graves = read_tombstones(settings.workspace)
    found = [
        Residue(f"a forget killed midway left its order {o.id} unfinished", "order", o.id)
        for o in pending_orders(settings.workspace)
    ]
    found += _in_the_buffer(settings, graves)
    found += _on_pages(settings, graves, index or load_page_index(settings.workspace))
    found += _in_the_archive(settings, graves)
    found += _in_records(settings, graves)
    found += _in_the_log(settings, log, graves)
    return found


def _forgotten_fact(settings: Settings, graves: Tombstones, ident: str | None, text: str) -> bool:
    if ident is not None and ident in graves.facts:
        return True
    if not graves.fingerprints:  # nothing forgotten by its words (and maybe no key to ask)
        return False
    row = graves.fingerprints.get(fingerprint(settings.workspace, text))
    return row is not None and row.get("kind") == "fact"


def _in_the_buffer(settings: Settings, graves: Tombstones) -> list[Residue]:
    out = []
    for e in read_buffer(settings):
        if _forgotten_fact(settings, graves, e.id, e.text):
            out.append(
                Residue(f"buffer entry {e.id} holds a forgotten fact", "fact", e.id, words=e.text)
            )
        out += [
            _evidence(f"buffer entry {e.id} was captured from", m, graves)
            for m in graves.message_ids.intersection(e.sources)
        ]
    return out


def _on_pages(settings: Settings, graves: Tombstones, index: PageIndex) -> list[Residue]:
    out = []
    paths = [(slug, settings.workspace.concepts_dir / e.path) for slug, e in index.entries.items()]
    paths += [(f"trash {p.name}", p) for p in trash_pages(settings)]
    for where, path in paths:
        text, _ = read_text_snapshot(path)
        for b in fact_bullets(text):
            if not b.entry_id:
                continue
            if forgotten(b):
                out.append(
                    Residue(
                        f"{where}: fact {b.entry_id} is kept as forgotten (an older release's "
                        "forget kept its words)",
                        "fact",
                        b.entry_id,
                        words=b.text,
                    )
                )
            elif _forgotten_fact(settings, graves, b.entry_id, b.text):
                out.append(
                    Residue(
                        f"{where}: fact {b.entry_id} was forgotten",
                        "fact",
                        b.entry_id,
                        words=b.text,
                    )
                )
            out += [
                _evidence(f"{where}: fact {b.entry_id} was captured from", m, graves)
                for m in graves.message_ids.intersection(b.sources)
            ]
    return out


def _in_the_archive(settings: Settings, graves: Tombstones) -> list[Residue]:
    out = []
    folder = settings.workspace.archive_dir
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        text, _ = read_text_snapshot(path)
        for e in parse_buffer(text):
            if _forgotten_fact(settings, graves, e.id.split("-", 1)[0], e.text):
                out.append(
                    Residue(
                        f"archive {path.name}: holds forgotten fact {e.id}",
                        "fact",
                        e.id.split("-", 1)[0],
                        words=e.text,
                    )
                )
    for row in rows(settings):
        if row.get("op") == "forget" and row.get("text") and isinstance(row.get("id"), str):
            out.append(
                Residue(
                    f"the decision log keeps the words of forgotten fact {row['id']}",
                    "fact",
                    str(row["id"]),
                    words=str(row["text"]),
                )
            )
    return out


def _in_records(settings: Settings, graves: Tombstones) -> list[Residue]:
    out = []
    for record in PromotionStore.load(settings.workspace).records.values():
        said = {m for ms in record.evidence_messages.values() for m in ms}
        out += [
            _evidence(f"promotion {record.id} counts as evidence", m, graves)
            for m in graves.message_ids & said
        ]
        for s in graves.sessions.keys() & set(record.evidence_sessions):
            ids = graves.sessions[s].get("messages") or []
            if ids:
                out.append(
                    Residue(
                        f"promotion {record.id} counts forgotten session {s}",
                        "evidence",
                        str(ids[0]),
                        s,
                    )
                )
    for candidate in CurationStore.load(settings.workspace).candidates:
        evidence = candidate.fact.get("evidence", [])
        for e in evidence if isinstance(evidence, list) else []:
            quoted = e.get("message_id") if isinstance(e, dict) else None
            if isinstance(quoted, int) and quoted in graves.messages:
                out.append(_evidence(f"curation candidate {candidate.id} quotes", quoted, graves))
    return out


def _evidence(what: str, message: int, graves: Tombstones) -> Residue:
    """A live record that names forgotten message `message` as its source."""
    return Residue(
        f"{what} forgotten message {message}",
        "evidence",
        str(message),
        graves.messages[message].get("session"),
    )


def _in_the_log(settings: Settings, log: SessionLog, graves: Tombstones) -> list[Residue]:
    out: list[Residue] = []
    ws = settings.workspace
    if not graves.message_prints and not graves.message_words:
        return out
    for row in log.sessions(10_000):
        for m in log.messages(row.id):
            same = message_fingerprint(ws, m.session_id, m.role, m.at, m.text)
            words = message_word_prints(ws, m.role, m.at, m.text)
            if same in graves.message_prints or graves.message_words & words:
                out.append(
                    Residue(
                        f"session {m.session_id}: message {m.id} was forgotten and is logged again",
                        "message",
                        str(m.id),
                        m.session_id,
                    )
                )
    return out


def finish(settings: Settings, log: SessionLog, found: list[Residue], via: str = "doctor") -> int:
    """Forget again what `found` names (the orders left first); how many items."""
    finished = finish_orders(settings, log)
    facts = sorted({r.ident for r in found if r.kind == "fact"})
    live = sorted({int(r.ident) for r in found if r.kind == "message"})
    lost = sorted({int(r.ident) for r in found if r.kind == "evidence"})
    if not (facts or live or lost):
        return finished
    order = Order(new_order_id(), time.time(), via, facts=facts, messages=live + lost)
    order.texts = {r.ident: r.words for r in found if r.kind == "fact" and r.words}
    order.touched = sorted({r.session for r in found if r.session and r.kind == "evidence"})
    with forget_lock(settings):
        run_order(settings, log, order)
    return finished + len(facts) + len(live) + len(lost)
