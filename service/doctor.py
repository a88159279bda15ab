"""`memory doctor`: do the markdown and every derived file agree, and repair what
is derived.

Checks, each a line naming the page or file and its repair: the index (each
page's content hash in the index state, the store's points per page, orphan
points, the embedders' identity, the BM25 statistics and the sparse vectors'
avgdl drift: `substrate.index.consistency`), the page-index cache, the learned
edges journal and the conversation files (`lanes.health`), the job queue's
expired leases and a stale service file. No model is loaded to check.

`fix` repairs only derived state, never `memory/`: it deletes unreadable
derived files, drops stale pages from the index state and re-indexes them (or
rebuilds the collection when it holds orphan points or another model's
vectors), releases expired leases and removes a dead service's file. While a
service runs for the workspace it owns the embedded index: the store checks
are skipped (said in `notes`) and the re-index goes through the service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanes.checks import conversation_problems, edges_problems
from service.discovery import running_service, service_file, stale_service_file
from service.jobs import JobQueue
from substrate import Settings, open_search_index
from substrate.index.consistency import (
    DELETE,
    REBUILD,
    REINDEX,
    Problem,
    index_problems,
    page_cache_problems,
)
from substrate.index.index_state import mark_stale, state_path
from substrate.pages.page_index import checked_page_index

Maintain = Callable[[bool], object]  # rebuild -> report


@dataclass
class Checkup:
    problems: list[Problem]
    fixed: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "problems": [p.as_json() for p in self.problems],
            "fixed": [p.as_json() for p in self.fixed],
            "notes": self.notes,
        }


def diagnose(settings: Settings) -> Checkup:
    corpus = settings.indexed_corpus()
    state = settings.workspace.state_dir
    notes = []
    index, cache_trouble = checked_page_index(corpus.workspace)
    problems = page_cache_problems(corpus, cache_trouble)
    service = running_service(settings.workspace)
    if service is None:
        search = open_search_index(corpus)
        try:
            problems += index_problems(corpus, search, index)
        finally:
            search.store.close()
    else:
        notes.append(
            f"the service at {service.url} (pid {service.pid}) owns the index: "
            "the store and model checks were skipped"
        )
    problems += edges_problems(state / "edges.jsonl")
    problems += conversation_problems(state / "conversations")
    problems += _queue_problems(state / "jobs.sqlite")
    stale = stale_service_file(settings.workspace)
    if stale is not None:
        problems.append(
            Problem(
                "service_file",
                f"{service_file(settings.workspace)}: names pid {stale.pid}, which is not running",
                "delete it",
                DELETE,
                (str(service_file(settings.workspace)),),
            )
        )
    return Checkup(problems, notes=notes)


def repair(settings: Settings, found: Checkup, maintain: Maintain) -> Checkup:
    """Fix every problem found (derived state only), then check again."""
    state_dir = settings.workspace.state_dir.resolve()
    corpus = settings.indexed_corpus()
    reindex: set[str] = set()
    rebuild = False
    for problem in found.problems:
        if problem.repair == DELETE:
            for name in problem.subject:
                path = Path(name).resolve()
                if state_dir not in path.parents:  # never anything under memory/
                    raise AssertionError(f"doctor would delete {path}, outside {state_dir}")
                path.unlink(missing_ok=True)
        elif problem.repair == REINDEX:
            reindex.update(problem.subject)
        elif problem.repair == REBUILD:
            rebuild = True
        elif problem.kind == "job_lease":
            JobQueue(settings.workspace.state_dir / "jobs.sqlite").release(int(problem.subject[0]))
    needs_index = rebuild or any(p.repair == REINDEX for p in found.problems)
    if reindex and not rebuild:
        mark_stale(state_path(corpus.workspace.index_dir), reindex)
    if needs_index or any(p.kind == "bm25_stats" for p in found.problems):
        maintain(rebuild)
    after = diagnose(settings)
    still = {(p.kind, p.message) for p in after.problems}
    fixed = [p for p in found.problems if (p.kind, p.message) not in still]
    return Checkup(after.problems, fixed, after.notes)


def _queue_problems(path: Path) -> list[Problem]:
    if not path.exists():
        return []
    return [
        Problem(
            "job_lease",
            f"{path}: job {job_id} ({kind}) is marked running but its lease expired "
            "(its worker died)",
            "put it back in the queue",
            "release",
            (str(job_id),),
        )
        for job_id, kind, _ in JobQueue(path).expired_leases()
    ]
