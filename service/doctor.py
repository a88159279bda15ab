"""`memory doctor`: do the markdown and every derived file agree, and repair what
is derived.

Checks, each a line naming the page or file and its repair: the index (each
page's content hash in the index state, the store's points per page, orphan
points, the embedders' identity, the BM25 statistics and the sparse vectors'
avgdl drift: `substrate.index.consistency`), the page-index cache, the learned
edges journal and the conversation files (`lanes.health`), the job queue's
expired leases, a stale service file, changes a killed writer left half
done (the journals of `remember` and of the profile), promotion records and
curation candidates that no longer match the profile files, and links a
killed page move left to rewrite (`doctor_records`), views that show what the
pages no longer hold, pages that do not parse and facts held for review
(`doctor_memory`). No model is loaded to
check. On a workspace it cannot write (read-only), the embedded store cannot
be opened: its checks are skipped and said in `notes`.

`fix` repairs only derived state, never `memory/`: it deletes unreadable
derived files, drops stale pages from the index state and re-indexes them (or
rebuilds the collection when it holds orphan points or another model's
vectors), releases expired leases and removes a dead service's file. The one
repair that writes under `memory/` finishes a half-done change from its
journal, as the next writer would have (and the records and links of
`doctor_records`, which follow the person's files, never change them, and the
views, derived from the pages): the
change was already decided, and rolling it forward is what makes the buffer
and archive (or the profile and its records) agree again. While a service
runs for the workspace it owns the embedded index: the store checks are
skipped (said in `notes`) and the re-index goes through the service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanes.checks import conversation_problems, edges_problems
from service.discovery import running_service, service_file, stale_service_file
from service.doctor_forgetting import (
    FINISH_FORGET,
    clear_compaction,
    clear_replays,
    compaction_problems,
    finish_forgetting,
    replay_problems,
    residue_problems,
)
from service.doctor_memory import DERIVE, derive_views, memory_problems
from service.doctor_records import FORGET_RECORD, RELINK, record_problems, repair_record
from service.jobs import JobQueue
from substrate import Settings, StoreUnavailableError, open_search_index
from substrate.consolidation.log import changes_journal, recover_changes
from substrate.index.consistency import (
    DELETE,
    REBUILD,
    REINDEX,
    Problem,
    index_problems,
    page_cache_problems,
)
from substrate.index.index_state import mark_stale, state_path
from substrate.intake import finish_intake, intake_journal
from substrate.pages.page_index import PageIndex, checked_page_index
from substrate.profile import profile_journal, profile_lease
from substrate.safety import hold_lock, journal
from substrate.sessions import bad_lines, open_session_log, transcript_files
from substrate.sessions.erasure import erasure_journal

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


IndexChecks = Callable[[PageIndex], list[Problem]]


def diagnose(
    settings: Settings, store: bool = True, index_checks: IndexChecks | None = None
) -> Checkup:
    """Every check. The service asking about its own workspace passes `store`
    False and its own `index_checks` (it holds the index open: the checks run
    against that, between its index writes); without them the store and model
    checks are skipped, and `notes` says so."""
    corpus = settings.indexed_corpus()
    state = settings.workspace.state_dir
    notes = []
    index, cache_trouble = checked_page_index(corpus.workspace)
    problems = page_cache_problems(corpus, cache_trouble)
    problems += compaction_problems(settings)  # before the store opens (opening recovers)
    service = running_service(settings.workspace)
    if not store and index_checks is not None:
        problems += index_checks(index)
    elif not store:
        notes.append("the index checks were not asked for (`?index=1` runs them)")
    elif service is None:
        try:
            search = open_search_index(corpus)
        except StoreUnavailableError as exc:
            search = None
            notes.append(f"the store and model checks were skipped: {exc.message}")
        if search is not None:
            try:
                problems += index_problems(corpus, search, index)
            finally:
                search.store.close()
    else:
        notes.append(
            f"the service at {service.url} (pid {service.pid}) owns the index: "
            "its checks run there (`memory doctor` asks it)"
        )
    problems += edges_problems(state / "edges.jsonl")
    problems += conversation_problems(state / "conversations")
    problems += _queue_problems(state / "jobs.sqlite")
    problems += _journal_problems(settings)
    problems += _transcript_problems(settings)
    problems += record_problems(settings, index)
    problems += memory_problems(settings, index)
    problems += residue_problems(settings, index)
    problems += replay_problems(settings)
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
        elif problem.repair == ROLL_FORWARD:
            _roll_forward(settings, problem.subject[0])
        elif problem.repair in (FORGET_RECORD, RELINK):
            repair_record(settings, problem)
        elif problem.repair == DERIVE:
            derive_views(settings, checked_page_index(settings.workspace)[0])
    finish_forgetting(settings, [p for p in found.problems if p.repair == FINISH_FORGET])
    clear_compaction(found.problems)
    clear_replays(found.problems)
    needs_index = rebuild or any(p.repair == REINDEX for p in found.problems)
    if reindex and not rebuild:
        mark_stale(state_path(corpus.workspace.index_dir), reindex)
    if needs_index or any(p.kind == "bm25_stats" for p in found.problems):
        maintain(rebuild)
    after = diagnose(settings)
    still = {(p.kind, p.message) for p in after.problems}
    fixed = [p for p in found.problems if (p.kind, p.message) not in still]
    return Checkup(after.problems, fixed, after.notes)


ROLL_FORWARD = "roll_forward"


def _journals(settings: Settings) -> dict[str, Path]:
    return {
        "intake": intake_journal(settings),
        "profile": profile_journal(settings.workspace),
        "changes": changes_journal(settings),
        "log": erasure_journal(settings.workspace),
    }


def _journal_problems(settings: Settings) -> list[Problem]:
    problems = []
    for name, path in _journals(settings).items():
        files = journal.pending(path)
        if files is None:
            continue
        problems.append(
            Problem(
                "unfinished_change",
                f"{path}: a change a killed writer left half done ({', '.join(files)})",
                "finish it from its journal",
                ROLL_FORWARD,
                (name,),
            )
        )
    return problems


def _roll_forward(settings: Settings, name: str) -> None:
    if name == "intake":
        finish_intake(settings)
    elif name == "changes":
        with hold_lock(settings.workspace.consolidation_lock_path, purpose="doctor"):
            recover_changes(settings)
    elif name == "log":
        open_session_log(settings.workspace).close()  # opening it rolls an erasure forward
    else:
        with profile_lease(settings.workspace):
            pass  # taking the lease finishes the change


def _transcript_problems(settings: Settings) -> list[Problem]:
    """Lines of the conversation log every reader skips: reported, never
    repaired (`memory/` is the person's: they decide what the line should say)."""
    return [
        Problem(
            "bad_log_line",
            f"{path}:{line}: {what}; readers skip it",
            "edit or delete the line by hand (memory/ is never repaired automatically)",
            "report",
        )
        for path, _ in transcript_files(settings.workspace)
        for line, what in bad_lines(path)
    ]


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
