"""`memory import`: chat history into the conversation log, then capture over it.

The log is the authority for what was said; pages are learned from it, never
written from the export directly. Capture runs over the sessions the import
touched: the model's extractor when a model is configured, else the offline
extractor. Consolidation then files what capture left in the buffer, like any
remembered fact.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from service.memory import Memory


def import_history(memory: Memory, fmt: str, path: Path, dry_run: bool = False) -> dict[str, Any]:
    from ingest.chat_import import import_conversations
    from substrate.curation import capture_offline, capture_session

    log = memory.sessions
    with memory.progress("importing conversations") as bar:
        done = import_conversations(log, fmt, path, dry_run, bar)
    if not dry_run and done.touched:
        client, now = memory.llm, time.time()
        with memory.progress("capturing facts") as bar:
            for n, session in enumerate(done.touched, start=1):
                if client is None:
                    done.capture.append(capture_offline(memory.settings, log, session, now))
                else:
                    done.capture.append(capture_session(memory.settings, log, client, session, now))
                bar(n, len(done.touched))
    return {**done.as_json(), "extractor": "offline" if memory.llm is None else "model"}
