"""Owns `memory/.forgetting/`: a forget's work order, kept until it is done.

A forget reaches files guarded by different locks (the log's database, the
pages and views, the buffer and archive, the profile and its records), each
changed as one journaled change of its own. So a forget first writes what it
will do (the order: the sources to forget, the facts and messages they take
along, the words to cut), then runs each part; every part recomputes what is
left to do from the files as they are, so running an order again finishes
it and changes nothing more. The order goes once every part is done; a kill
leaves it, and the next forget, `memory doctor --fix`, the service's start
or a history read finishes it (`cascade.finish_orders`). While it lasts the
order holds the words being erased: they are gone from it when it goes.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError
from substrate.safety import read_regular_file, unlinked_folder, write_atomic

FOLDER = ".forgetting"
MAX_ORDER_BYTES = 64 * 1024 * 1024
SURFACES = ("cli", "http", "mcp", "web", "cascade", "doctor", "library")


@dataclass
class Order:
    """`facts`: entry ids to erase, with `texts` (their words, to cut them out of
    whatever else says them) and `said` (the messages each was drawn from);
    `messages`: logged message ids to erase (a
    session's all), `sessions` whole; `captured`: entry id -> message id, the
    lineage capture kept in transcripts before facts carried their own; `lines`:
    profile lines, `promotions` and `candidates`: ids the person named;
    `touched`: sessions a promotion's evidence must be derived again from."""

    id: str
    at: float
    via: str
    facts: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    said: dict[str, list[int]] = field(default_factory=dict)
    messages: list[int] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    captured: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    promotions: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)  # sessions whose evidence to derive again
    # (message id, words) to cut out of messages that said a named fact; None:
    # not looked for yet (`cascade` finds them when it runs the order)
    redact: list[tuple[int, str]] | None = None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def orders_dir(workspace: Workspace) -> Path:
    return workspace.memory_dir / FOLDER


def new_order_id() -> str:
    return "o-" + secrets.token_hex(6)


def write_order(workspace: Workspace, order: Order) -> Path:
    folder = unlinked_folder(workspace.memory_dir, orders_dir(workspace))
    path = folder / f"{order.id}.json"
    write_atomic(path, json.dumps(order.as_json(), ensure_ascii=False))
    return path


def pending_orders(workspace: Workspace) -> list[Order]:
    """The orders a killed forget left, oldest first."""
    folder = orders_dir(workspace)
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except FileNotFoundError:
        return []
    out = []
    for name in names:
        order = _read(folder / name)
        if order is not None:
            out.append(order)
    return sorted(out, key=lambda o: o.at)


def _read(path: Path) -> Order | None:
    try:
        raw = json.loads(read_regular_file(path, MAX_ORDER_BYTES))
        order = Order(**raw)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, InvalidInputError):
        path.unlink(missing_ok=True)  # written atomically: one that does not parse is not ours
        return None
    order.messages = [int(m) for m in order.messages]
    if order.redact is not None:
        order.redact = [(int(m), str(w)) for m, w in order.redact]
    return order


def drop_order(workspace: Workspace, order: Order) -> None:
    (orders_dir(workspace) / f"{order.id}.json").unlink(missing_ok=True)
