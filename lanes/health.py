"""The lanes' derived state reset loudly when unreadable: the learned edges journal
and the conversation files (`lanes.checks` is what `memory doctor` asks of them).

Both are derived: a reader that cannot parse them starts empty rather than
failing a turn. That reset is logged and counted here (`RESETS`, reported by
`GET /v1/memory/stats`), so lost state never goes unnoticed. So is a turn
whose state could not be saved (a full disk, a read-only workspace): the card
is answered all the same (`UNSAVED`)."""

from __future__ import annotations

import logging
import threading
from collections import Counter
from pathlib import Path

log = logging.getLogger("memory.lanes")
RESETS: Counter[str] = Counter()
UNSAVED: Counter[str] = Counter()
_LOCK = threading.Lock()


def note_reset(what: str, path: Path, why: str) -> None:
    with _LOCK:
        RESETS[what] += 1
    log.warning("%s %s is unreadable (%s): starting from empty state", what, path, why)


def note_unsaved(what: str, exc: OSError) -> None:
    """A turn's derived state that could not be written: the turn still answers."""
    with _LOCK:
        UNSAVED[what] += 1
    log.warning("%s not saved: %s", what, exc)
