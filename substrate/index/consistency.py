"""Do the pages and the derived index agree? The index half of `memory doctor`.

Each check reads only derived state and the page index (no model is loaded: an
embedder's identity hashes its files). Each problem names the page or file
and its repair; repairs of the index are a re-index of the pages concerned
(`mark_stale` then maintain) or, when the collection itself is suspect
(orphan points, another model's vectors), a rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from substrate.config.settings import Settings
from substrate.index.bm25 import Bm25Stats
from substrate.index.index_state import read_index_state, state_path
from substrate.index.reweight import DRIFT
from substrate.index.search_index import SearchIndex
from substrate.pages.page_index import PageIndex

CAPABILITY_PREFIX = "capability/"  # synthetic entries (`Capability`), not pages
EPISODE_PREFIX = "episode/"  # the conversation log's windows (`sessions.episodes`)
REINDEX = "reindex"  # fix: re-embed the named pages
REBUILD = "rebuild"  # fix: rebuild the collection
DELETE = "delete"  # fix: delete the named derived file


@dataclass(frozen=True)
class Problem:
    """`repair` is how `--fix` acts (REINDEX / REBUILD / DELETE / a kind's own), and
    `subject` what it acts on (slugs, a path)."""

    kind: str
    message: str
    fix: str
    repair: str = ""
    subject: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "fix": self.fix,
            "subject": list(self.subject),
        }


def index_problems(settings: Settings, search: SearchIndex, index: PageIndex) -> list[Problem]:
    """Every disagreement between the pages, the index state, the store and the
    BM25 statistics."""
    ws = settings.workspace
    state = read_index_state(state_path(ws.index_dir))
    problems = _state_problems(state, index)
    if state and state.get("identity") != search.identity:
        problems.append(
            Problem(
                "embedder_identity",
                f"{state_path(ws.index_dir)}: the collection was built by other models "
                f"({state.get('identity')!r}, configured: {search.identity!r})",
                "rebuild the index with the configured models",
                REBUILD,
            )
        )
    if state:
        problems += _store_problems(search, state)
    problems += _stats_problems(search, state)
    problems += _quantization_problems(settings, search)
    return problems


def _quantization_problems(settings: Settings, search: SearchIndex) -> list[Problem]:
    """An embedded shard made with other vector storage than the setting asks:
    it keeps what it was made with until a rebuild (changing the setting alone
    never re-embeds a workspace)."""
    made = search.store.quantization
    wanted = settings.tuning.dense_quantization
    if made is None or made == wanted:
        return []
    return [
        Problem(
            "index_quantization",
            f"{settings.workspace.index_dir}: the index keeps its dense vectors "
            f"{'as int8 copies too' if made == 'int8' else 'as float32 only'}, while "
            f"[memory.substrate] dense_quantization = {wanted!r}",
            "rebuild the index to apply the setting (every page embedded again)",
            REBUILD,
        )
    ]


def page_cache_problems(settings: Settings, why: str | None) -> list[Problem]:
    """`why` the page-index cache could not be used (`checked_page_index`)."""
    path = settings.workspace.page_index_path
    if why is None:
        return []
    fix = "delete it (the next scan rewrites it)"
    return [Problem("page_index_cache", f"{path}: {why}", fix, DELETE, (str(path),))]


def _state_problems(state: dict[str, Any], index: PageIndex) -> list[Problem]:
    pages: dict[str, Any] = state.get("pages", {})
    out = []
    for slug, entry in index.entries.items():
        held = pages.get(slug)
        if held is None:
            out.append(_reindex("page_not_indexed", slug, f"page {slug} is not in the index"))
        elif held[0] != entry.content_hash:
            out.append(_reindex("page_hash", slug, f"page {slug} changed since it was indexed"))
    for slug in pages:
        if slug not in index.entries and not slug.startswith((CAPABILITY_PREFIX, EPISODE_PREFIX)):
            out.append(_reindex("page_gone", slug, f"page {slug} is gone but still indexed"))
    return out


def _store_problems(search: SearchIndex, state: dict[str, Any]) -> list[Problem]:
    pages: dict[str, Any] = state.get("pages", {})
    counts = search.store.slug_counts()
    out = []
    for slug, (_, chunks) in pages.items():
        held = counts.get(slug, 0)
        if held != chunks:
            message = f"page {slug}: {held} points stored, the index state says {chunks}"
            out.append(_reindex("store_points", slug, message))
    orphans = sorted(slug for slug in counts if slug not in pages)
    if orphans:
        named = ", ".join(orphans[:5]) + (
            f" and {len(orphans) - 5} more" if len(orphans) > 5 else ""
        )
        out.append(
            Problem(
                "orphan_points",
                f"the store holds points of {len(orphans)} slugs no page indexes: {named}",
                "rebuild the index",
                REBUILD,
                tuple(orphans),
            )
        )
    return out


def _stats_problems(search: SearchIndex, state: dict[str, Any]) -> list[Problem]:
    path = search.stats_path
    if not state.get("pages"):
        return []
    stats = Bm25Stats.load(path)
    chunks = sum(int(v[1]) for v in state["pages"].values())
    out = []
    if stats.documents != chunks:
        out.append(
            Problem(
                "bm25_stats",
                f"{path}: statistics over {stats.documents} chunks, the index holds {chunks}",
                "delete the statistics (the next maintain recounts them from the stored chunks)",
                DELETE,
                (str(path),),
            )
        )
    weighted = state.get("sparse_avgdl")
    if stats.documents and weighted and abs(stats.avgdl - weighted) / weighted > DRIFT:
        out.append(
            Problem(
                "sparse_avgdl",
                f"{state_path(search.stats_path.parent)}: sparse vectors written at avgdl "
                f"{weighted:.1f}, the corpus is at {stats.avgdl:.1f}",
                "maintain (re-weights the stored sparse vectors)",
                REINDEX,
            )
        )
    return out


def _reindex(kind: str, slug: str, message: str) -> Problem:
    return Problem(kind, message, f"re-index page {slug}", REINDEX, (slug,))
