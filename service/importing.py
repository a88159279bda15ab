"""`memory import`: chat history into the conversation log, then capture over it.

The log is the authority for what was said; pages are learned from it, never
written from the export directly. Capture runs over the sessions the import
touched: the model's extractor when a model is configured and answers, else
(no model, or one that is down) the offline extractor. Consolidation then
files what capture left in the buffer, like any remembered fact.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from service.memory import Memory
from substrate import StoreUnavailableError
from substrate.errors import from_os_error
from substrate.safety import WRITE_ROOM, require_room


def import_history(
    memory: Memory,
    fmt: str,
    path: Path,
    dry_run: bool = False,
    include_forgotten: bool = False,
) -> dict[str, Any]:
    """Log the export's conversations (what the person forgot stays out unless
    `include_forgotten`), then capture every session of it capture has not read
    to its end. A full disk is refused before the first write; one that fills
    during capture ends the run with what was done said, and the next run of
    the same file captures the rest."""
    from ingest.chat_import import import_conversations
    from substrate.curation import capture_any

    if not dry_run:
        require_room(memory.settings.workspace.memory_dir, WRITE_ROOM, "an import")
    log = memory.sessions
    with memory.progress("importing conversations") as bar:
        done = import_conversations(log, fmt, path, dry_run, bar, include_forgotten)
    stopped = None
    if not dry_run and done.touched:
        client, now = memory.llm, time.time()
        with memory.progress("capturing facts") as bar:
            for n, session in enumerate(done.touched, start=1):
                try:
                    captured = capture_any(memory.settings, log, client, session, now)
                except (StoreUnavailableError, OSError) as exc:
                    typed = from_os_error(exc) if isinstance(exc, OSError) else exc
                    stopped = f"stopped at session {n} of {len(done.touched)}: {typed.message}"
                    break
                done.capture.append(captured)
                bar(n, len(done.touched))
    if not dry_run and done.touched and stopped is None:
        with contextlib.suppress(StoreUnavailableError):
            memory.maintain_after_write(None)  # the imported sessions' episodes
    answer = {**done.as_json(), "extractor": "offline" if memory.llm is None else "model"}
    if stopped is not None:
        answer["capture"] = f"{stopped} (the conversations are logged; rerun to capture the rest)"
    return answer
