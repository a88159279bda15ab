"""`memory purge`: no byte of a forgotten item left in the derived stores,
composed once for every surface as a part of `Memory` (mixed into it).

A forget erases the words from every file under `memory/` at once. The
derived stores keep what they deleted until they are rewritten: Qdrant marks
a deleted point and vacuums only big segments, SQLite keeps freed pages and
its write-ahead log. A purge rewrites each with its live content alone: the
index (its live points copied into a new shard, nothing embedded again; the
BM25 statistics counted again; unit vectors of removed pages dropped), the
conversation log's and the job queue's databases (full-text index merged,
VACUUM, write-ahead log truncated), the learned edges and conversation state
(without removed pages and frozen cards), the page cache, stray temp files
and, with `trash`, the trash. A forget a killed process left half done is
finished first. The service runs the same as a lowest-priority job on its
worker, coalesced: on a schedule (`purge_interval_hours`) and after a
session is forgotten.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Protocol

from substrate import Settings

if TYPE_CHECKING:
    from substrate import MaintainReport, SearchIndex
    from substrate.sessions import SessionLog


class _Workspace(Protocol):
    settings: Settings
    _index_lock: threading.Lock

    @property
    def sessions(self) -> SessionLog: ...

    @property
    def index(self) -> SearchIndex: ...

    def maintain(self, rebuild: bool = False) -> MaintainReport: ...


class Purging:
    def purge(self: _Workspace, trash: bool = False) -> dict[str, Any]:
        """Rewrite every derived store with its live content alone; what was
        rewritten (bytes before and after) and the bytes freed."""
        from lanes.conversations import ConversationStore
        from lanes.edges import LearnedEdges
        from service.jobs import JobQueue
        from service.replays import replay_store
        from substrate.forgetting import finish_orders
        from substrate.forgetting.purge import (
            empty_trash,
            refresh_page_cache,
            sweep_temps,
        )
        from substrate.pages import load_page_index

        started = time.perf_counter()
        settings, ws = self.settings, self.settings.workspace
        finished = finish_orders(settings, self.sessions)
        rewrote: list[dict[str, Any]] = []
        if trash:
            rewrote.append({"what": "trash", **empty_trash(settings)})
        search = self.index  # opened (and brought up to the pages) before the lock
        self.maintain()  # a served workspace re-embeds a forget later: not after the purge
        with self._index_lock:
            index = search.compact()
        rewrote += [{"what": f"index {name}", **part} for name, part in index.items()]
        rewrote.append({"what": "conversation log", **self.sessions.compact()})
        rewrote.append({"what": "request keys", **replay_store(ws.state_dir).clear()})
        queue = ws.state_dir / "jobs.sqlite"
        if queue.exists():
            rewrote.append({"what": "job queue", **JobQueue(queue).compact()})
        pages = load_page_index(ws)
        cards = ConversationStore(ws.state_dir / "conversations").drop_cards()
        edges = LearnedEdges(ws.state_dir / "edges.jsonl", settings.v3.edge_decay)
        dropped = edges.keep_only(pages.entries)
        rewrote.append({"what": "page cache", **refresh_page_cache(settings)})
        swept = sweep_temps(settings)
        freed = sum(max(0, int(r.get("before", 0)) - int(r.get("after", 0))) for r in rewrote)
        return {
            "rewrote": rewrote,
            "freed": freed,
            "forgets_finished": finished,
            "frozen_cards_dropped": cards,
            "edge_pages_dropped": dropped,
            "temp_files_swept": swept,
            "seconds": round(time.perf_counter() - started, 3),
        }
