"""`memory import`: chat history into the conversation log, then capture over it.

The log is the authority for what was said; pages are learned from it, never
written from the export directly. Capture runs over the sessions the import
touched: the model's extractor when a model is configured and answers, else
(no model, or one that is down) the offline extractor. Consolidation then
files what capture left in the buffer, like any remembered fact.
"""

from __future__ import annotations

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
    data: bytes | None = None,
) -> dict[str, Any]:
    """Log the export's conversations (what the person forgot stays out unless
    `include_forgotten`), then capture every session of it capture has not read
    to its end. A full disk is refused before the first write; one that fills
    during capture ends the run with what was done said, and the next run of
    the same file captures the rest. `data`: the file's bytes (a request to
    the service that owns the workspace; `path` names it).

    The imported sessions' episodes are indexed before this returns, so what
    was imported is searchable at once; an index that cannot take them is said
    in the answer (`index`), never swallowed."""
    from ingest.chat_import import import_conversations
    from substrate.curation import capture_any

    if not dry_run:
        require_room(memory.settings.workspace.memory_dir, WRITE_ROOM, "an import")
    log = memory.sessions
    with memory.progress("importing conversations") as bar:
        done = import_conversations(log, fmt, path, dry_run, bar, include_forgotten, data)
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
    index = None
    if not dry_run and done.appended:
        try:
            memory.maintain_after_write(None)  # the imported sessions' episodes
        except StoreUnavailableError as exc:
            index = (
                f"behind: {exc.message} (the conversations are logged; "
                "the next maintain indexes them)"
            )
    answer = {**done.as_json(), "extractor": "offline" if memory.llm is None else "model"}
    if index is not None:
        answer["index"] = index
    if stopped is not None:
        answer["capture"] = f"{stopped} (the conversations are logged; rerun to capture the rest)"
    return answer
