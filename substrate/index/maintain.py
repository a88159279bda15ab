"""Index maintenance: bring the collection and the BM25 statistics up to the pages.

Maintenance diffs the PageIndex against `.substrate/index-state.json` (the
content hash and chunk count of every indexed page). The PageIndex already
re-reads only files whose (mtime, size) moved, so the candidates come from
modification times and the content hash confirms them: unchanged pages and
pages merely touched cost nothing, changed pages are re-chunked, re-embedded
and upserted, deleted pages leave the collection. A changed embedder identity,
or a store that lost its points, means a full rebuild rather than vectors from
two models side by side; so does a change of what a BM25 token is
(`bm25.TOKENIZER`).

A short page's chunks carry the whole page in their `dense_ml` vectors
(`_page_context`), which lets an English question find an Arabic paragraph.

The index state only ever claims points that exist: before any point changes,
the state is rewritten without the pages about to change (and marked
incomplete; a rebuild first says nothing is indexed), and only when their new
points are stored does it claim them again. A maintain killed half way
therefore leaves a state the next plain maintain reads correctly: it re-embeds
what the state no longer claims, drops the points of pages it does not claim
at all, and never answers "unchanged" over a half-empty store.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from substrate.config.cpus import usable_cpus
from substrate.config.settings import Settings
from substrate.errors import InvalidInputError
from substrate.index.bm25 import Bm25Stats, chunk_keys, document_vector, tokenize
from substrate.index.chunk_vectors import ChunkVectors
from substrate.index.chunks import Chunk, chunk_facts, chunk_page
from substrate.index.embedding import Embedder, Vectors
from substrate.index.excerpts import SPAN_BREAK, chunk_excerpt
from substrate.index.index_state import (
    STATE_VERSION,
    read_index_state,
    state_path,
    write_index_state,
)
from substrate.index.page_context import page_context, with_context
from substrate.index.qdrant_edge import check_free_space
from substrate.index.reweight import avgdl_for, reweight
from substrate.index.store import DENSE, DENSE_ML, HISTORY, IndexPoint, VectorStore
from substrate.index.unit_vectors import Page, UnitVectors
from substrate.pages.fact_section import split_facts
from substrate.pages.page_file import decode_page, read_page_file, split_frontmatter
from substrate.pages.page_index import PageEntry, PageIndex, load_page_index, page_entries
from substrate.safety.safe_files import sweep_stale_temps
from substrate.safety.sizes import file_bytes, folder_bytes

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Capability:
    """A synthetic entry, searchable and never fresh: a CLI command or a skill
    (`kind` capability), or an episode of the conversation log (`kind` episode,
    `meta` its session and time span, `origin_date` its day)."""

    slug: str
    title: str
    text: str
    kind: str = "capability"
    meta: dict[str, Any] | None = None
    origin_date: str | None = None


@dataclass(frozen=True)
class MaintainReport:
    embedded: int
    chunks: int
    deleted: int
    unchanged: int
    seconds: float
    rebuilt: bool
    reweighted: int = 0  # stored chunks whose BM25 vectors were re-weighted for a new avgdl
    capabilities: int = 0  # of `embedded`, the CLI's command entries (not concept pages)
    pages: tuple[str, ...] = field(default=(), compare=False)  # the pages re-embedded

    def as_json(self) -> dict[str, Any]:
        return {
            "embedded": self.embedded,
            "chunks": self.chunks,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "seconds": round(self.seconds, 3),
            "rebuilt": self.rebuilt,
            "reweighted": self.reweighted,
            "capabilities": self.capabilities,
        }

    def line(self) -> str:
        """What `memory maintain` prints: pages and capability entries apart."""
        pages = self.embedded - self.capabilities
        caps = f" and {self.capabilities} command capability entries" if self.capabilities else ""
        return (
            f"embedded {pages} pages{caps} ({self.chunks} chunks), deleted {self.deleted}, "
            f"unchanged {self.unchanged}{', rebuilt' if self.rebuilt else ''} "
            f"in {self.seconds:.2f} s"
        )


@dataclass(frozen=True)
class _Doc:
    """One page or capability as it should be in the index."""

    slug: str
    title: str
    kind: str
    content_hash: str
    fresh_at: float | None
    source: str | None
    origin_date: str | None
    path: Path | None
    text: str | None
    quarantine: str | None = None
    meta: dict[str, Any] | None = None


SWEEP_EVERY_S = 60.0
# Docs whose units (a page's facts and lines, an episode's lines) are embedded
# one by one for the card to choose among by meaning (`unit_vectors`).
UNIT_KINDS = ("page", "episode")
EPISODE_LINES = "episode-lines-complete"  # the marker: every indexed episode has its file


class Maintenance:
    """Maintains one collection for a `SearchIndex`: `embedders` by vector name
    (`dense` also sets the chunk size); `identity` is asked only when a maintain
    runs, since it hashes the model files."""

    def __init__(
        self,
        settings: Settings,
        embedders: dict[str, Embedder],
        store: VectorStore,
        identity: Callable[[], str],
    ) -> None:
        self._settings = settings
        self._embedders = embedders
        self._chunk_vectors = ChunkVectors()
        self.units = UnitVectors(settings.workspace.index_dir / "units")
        self._unit_model = embedders.get(DENSE_ML) or embedders[DENSE]
        self._embedder = embedders[DENSE]
        self._store = store
        self._identity = identity
        index_dir = settings.workspace.index_dir
        self._state_path = state_path(index_dir)
        self.stats_path = index_dir / "bm25-stats.json"
        self.saved: Bm25Stats | None = None  # the statistics the last maintain wrote
        self._indexed: dict[str, str] | None = None  # slug -> content hash, as last maintained
        self._swept_at = float("-inf")  # when this process last swept temp files
        self._capabilities: set[str] = set()
        self._entry_kinds: set[str] = set()  # the kinds among `_capabilities`
        self._without_units: list[_Doc] = []  # unchanged episodes with no line vectors yet

    def _dims(self) -> dict[str, int]:
        return {name: e.dim for name, e in self._embedders.items()}

    def maintain(
        self,
        capabilities: Iterable[Capability] = (),
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        optimize: bool = True,
        only: Collection[str] | None = None,
    ) -> MaintainReport:
        """Bring the index up to the pages. `optimize=False` leaves compacting
        the store to a later `optimize()`: Qdrant Edge holds the GIL while it
        compacts, which would freeze a serving process's other threads. `only`:
        the pages a change just wrote, read alone instead of walking every page
        (a forget or a correction; the next full maintain sees the rest)."""
        started = time.perf_counter()
        self._sweep_temps()
        check_free_space(self._settings.workspace.state_dir)
        state = self._read_state()
        identity = self._identity()
        indexed: dict[str, list[Any]] = state.get("pages", {})
        lost = bool(indexed) and self._store.count() == 0
        rebuilt = rebuild or lost or state.get("identity") != identity
        weighted = None if rebuilt else state.get("sparse_avgdl")
        if rebuilt:
            self._claim({}, "", None, complete=False)  # from here on nothing is claimed
            self._store.reset(self._dims())
            self.units.clear()
            indexed, stats = {}, Bm25Stats()
        else:
            self._store.ensure(self._dims())
            if state.get("complete") is False:
                self._drop_unclaimed(indexed)  # a run killed half way left them
            stats = self._load_stats(list(indexed))
        if only is not None and not rebuilt:
            wanted, changed = self._changed_only(only, indexed)
        else:
            wanted, changed = self._changed_docs(capabilities, indexed)
        deleted = [slug for slug in indexed if slug not in wanted]
        touched = [*deleted, *(d.slug for d in changed if d.slug in indexed)]
        if touched or (changed and not rebuilt):
            for slug in touched:
                indexed.pop(slug, None)
            self._claim(indexed, identity, weighted, complete=False)
        self._forget(touched, stats)
        self.units.delete(deleted)
        chunks, avgdl = self._index(changed, stats, progress, weighted)
        fresh = {doc.slug for doc in changed}
        for doc, n in zip(changed, chunks, strict=True):
            indexed[doc.slug] = [doc.content_hash, n]
        reweighted = 0
        if avgdl != weighted and not rebuilt:
            older = [slug for slug in indexed if slug not in fresh]
            tuning = self._settings.tuning
            reweighted = reweight(self._store, older, avgdl, tuning.bm25_k1, tuning.bm25_b)
        if changed or deleted or rebuilt or stats.dirty or avgdl != weighted:
            # A no-op maintain writes nothing: flush and rewrites cost more than the diff.
            self._store.flush()
            if (changed or deleted) and optimize:
                self._store.optimize()
            stats.save(self.stats_path)
            self.saved = stats
            self._claim(indexed, identity, avgdl, complete=True)
        self._backfill_units()
        if only is None or rebuilt:
            self._backfill_lines()
        self._indexed = {slug: str(value[0]) for slug, value in indexed.items()}
        return MaintainReport(
            embedded=len(changed),
            chunks=sum(chunks),
            deleted=len(deleted),
            unchanged=len(wanted) - len(changed),
            seconds=time.perf_counter() - started,
            rebuilt=rebuilt,
            reweighted=reweighted,
            capabilities=sum(doc.kind != "page" for doc in changed),
            pages=tuple(doc.slug for doc in changed if doc.kind == "page"),
        )

    def compact(self) -> dict[str, Any]:
        """Rewrite the derived index with what it holds alive alone: the store's
        live points copied into a new shard (nothing embedded again), the BM25
        statistics counted again from the stored chunks, the unit vectors of
        pages no longer indexed removed. Call with maintenance held off."""
        folder = self._settings.workspace.index_dir
        before_units = folder_bytes(self.units.folder)
        before, after = self._store.compact()
        indexed = list(self._read_state().get("pages", {}))
        stats = Bm25Stats()
        for payload in self._store.chunks_of(indexed):
            text = str(payload.get("text", ""))
            stats.add(tokenize(text), chunk_keys(text))
        stats_before = file_bytes(self.stats_path)
        stats.save(self.stats_path)
        self.saved = stats
        removed = self.units.keep_only(indexed)
        return {
            "store": {"path": str(folder / "qdrant"), "before": before, "after": after},
            "bm25": {"before": stats_before, "after": file_bytes(self.stats_path)},
            "units": {
                "removed": removed,
                "before": before_units,
                "after": folder_bytes(self.units.folder),
            },
        }

    def holds(self, kind: str) -> bool:
        """Whether the last full maintain indexed any synthetic entry of `kind`
        (asked on every card: a set lookup, not a walk of the entries)."""
        return kind in self._entry_kinds

    def state_matches(self, index: PageIndex) -> bool:
        """Whether the index state on disk says every page of `index` is embedded
        at its content hash (and no other page is): a service starting on an
        index that is already current need not wait for its boot maintenance."""
        state = self._read_state()
        if state.get("complete") is False or state.get("identity") != self._identity():
            return False
        pages = {
            slug: value[0]
            for slug, value in state.get("pages", {}).items()
            if slug not in self._capabilities and value and value[0]
        }
        wanted = {slug: e.content_hash for slug, e in index.entries.items()}
        return all(pages.get(slug) == h for slug, h in wanted.items())

    def indexed_hash(self, slug: str) -> str | None:
        """The content hash `slug` had when it was embedded; None when the
        collection holds no such page or this process has not maintained it yet."""
        indexed = self._indexed
        return None if indexed is None else indexed.get(slug)

    def excerpt_now(self, entry: PageEntry) -> str:
        """The page's chunks as the next maintain would make them, as a hit's
        excerpt shows chunks (title prefix off, `SPAN_BREAK` between)."""
        chunks = self._chunks(_page_doc(entry, self._settings.workspace.concepts_dir))
        texts = [chunk_excerpt(c.text, entry.title) for c in chunks]
        return SPAN_BREAK.join(t for t in texts if t)

    def is_current(self, index: PageIndex) -> bool | None:
        """Whether the collection holds exactly `index`'s pages at their content
        hashes; None when this process has not maintained it yet."""
        if self._indexed is None:
            return None
        pages = {slug: h for slug, h in self._indexed.items() if slug not in self._capabilities}
        if len(pages) != len(index.entries):
            return False
        return all(pages.get(slug) == e.content_hash for slug, e in index.entries.items())

    def _sweep_temps(self) -> None:
        """Temp files a killed writer left in every folder the service writes: the
        derived state, and all of `memory/` (pages, buffer, archive, profile,
        conversations, trash); links are not followed. At most once a minute: a
        temp file is stale only after an hour, and a forget is followed by a
        maintain, which should not list every folder each time."""
        if time.monotonic() - self._swept_at < SWEEP_EVERY_S:
            return
        self._swept_at = time.monotonic()
        ws = self._settings.workspace
        folders = [ws.state_dir]
        if ws.state_dir.is_dir():
            folders += [p for p in ws.state_dir.iterdir() if p.is_dir() and p.name != "qdrant"]
        folders += [Path(folder) for folder, _, _ in os.walk(ws.memory_dir)]
        sweep_stale_temps(folders)

    def _load_stats(self, indexed: list[str]) -> Bm25Stats:
        """The saved BM25 statistics, rebuilt from the stored chunk texts when they
        do not describe the store (deleted, corrupt, or from an interrupted run)."""
        stats = Bm25Stats.load(self.stats_path)
        if stats.documents == self._store.count():
            return stats
        stats = Bm25Stats()
        for payload in self._store.chunks_of(indexed):
            text = str(payload.get("text", ""))
            stats.add(tokenize(text), chunk_keys(text))
        return stats

    def _changed_docs(
        self, capabilities: Iterable[Capability], indexed: dict[str, list[Any]]
    ) -> tuple[set[str], list[_Doc]]:
        """(every slug that should be indexed, docs for those whose content changed).

        Only changed pages become `_Doc`s: at 10,000 unchanged pages, building
        one object per page was most of a no-op maintain."""
        index = load_page_index(self._settings.workspace)
        concepts = self._settings.workspace.concepts_dir
        wanted = set(index.entries)
        changed = [
            _page_doc(e, concepts)
            for e in index.entries.values()
            if not _same(indexed.get(e.slug), e.content_hash)
        ]
        self._capabilities, self._entry_kinds = set(), set()
        self._without_units = []
        lines_done = self.units.complete(EPISODE_LINES)
        for cap in capabilities:
            digest = hashlib.sha256(f"{cap.title}\n{cap.text}".encode()).hexdigest()
            wanted.add(cap.slug)
            self._capabilities.add(cap.slug)
            self._entry_kinds.add(cap.kind)
            if not _same(indexed.get(cap.slug), digest):
                changed.append(_capability_doc(cap, digest))
            elif (
                cap.kind in UNIT_KINDS and not lines_done and not self.units.path(cap.slug).exists()
            ):  # indexed before its lines were embedded
                self._without_units.append(_capability_doc(cap, digest))
        return wanted, changed

    def _changed_only(
        self, slugs: Collection[str], indexed: dict[str, list[Any]]
    ) -> tuple[set[str], list[_Doc]]:
        """`_changed_docs` for these pages alone: every other indexed slug
        (capabilities too) is wanted as it stands."""
        entries = page_entries(self._settings.workspace, slugs)
        concepts = self._settings.workspace.concepts_dir
        wanted = {s for s in indexed if s not in entries} | {s for s, e in entries.items() if e}
        changed = [
            _page_doc(e, concepts)
            for e in entries.values()
            if e is not None and not _same(indexed.get(e.slug), e.content_hash)
        ]
        return wanted, changed

    def _forget(self, slugs: list[str], stats: Bm25Stats) -> None:
        """Remove these pages' chunks from the store and their terms from the BM25 stats."""
        if not slugs:
            return
        for payload in self._store.chunks_of(slugs):
            text = str(payload.get("text", ""))
            stats.remove(tokenize(text), chunk_keys(text))
        self._store.delete_slugs(slugs)

    def _index(
        self, docs: list[_Doc], stats: Bm25Stats, progress: Progress | None, weighted: float | None
    ) -> tuple[list[int], float]:
        """Chunk every doc, update BM25 stats, then embed and upsert in batches.
        Returns the chunk counts and the avgdl the sparse vectors were written at:
        the one the stored vectors share (`weighted`) unless the corpus has drifted
        from it (`reweight.avgdl_for`)."""
        tuning = self._settings.tuning
        planned: list[tuple[_Doc, Chunk, list[str], list[str]]] = []
        counts: list[int] = []
        pages: dict[str, tuple[str, list[Chunk]]] = {}
        for doc in docs:
            chunks = self._chunks(doc)
            counts.append(len(chunks))
            pages[doc.slug] = (doc.title, chunks)
            for chunk in chunks:
                tokens, keys = tokenize(chunk.text), chunk_keys(chunk.text)
                stats.add(tokens, keys)
                planned.append((doc, chunk, tokens, keys))
        context = self._page_context(pages)
        self._unit_vectors(
            {d.slug: (*pages[d.slug], d.content_hash) for d in docs if d.kind in UNIT_KINDS}
        )
        avgdl = avgdl_for(weighted, stats.avgdl)
        total = len(planned)
        size = self._settings.compute.batch_size
        batches = [planned[start : start + size] for start in range(0, total, size)]
        texts = [[chunk.text for _, chunk, _, _ in batch] for batch in batches]
        embedded = self._chunk_vectors.embed(
            self._embedders, texts, usable_cpus(), self._settings.compute.concurrent
        )
        for start, batch, vectors in zip(range(0, total, size), batches, embedded, strict=True):
            if DENSE_ML in vectors and context:
                vectors[DENSE_ML] = with_context(
                    vectors[DENSE_ML], [context.get(doc.slug) for doc, _, _, _ in batch]
                )
            points = [
                IndexPoint(
                    slug=doc.slug,
                    chunk=chunk.index,
                    dense={name: v[i] for name, v in vectors.items()},
                    sparse=document_vector(tokens, avgdl, tuning.bm25_k1, tuning.bm25_b, keys),
                    payload=_payload(doc, chunk),
                )
                for i, (doc, chunk, tokens, keys) in enumerate(batch)
            ]
            self._store.upsert(points)
            if progress is not None:
                progress(min(start + size, total), total)
        return counts, avgdl

    def _unit_vectors(self, pages: dict[str, Page]) -> None:
        if pages:
            self.units.index_pages(pages, self._unit_model, usable_cpus())

    def _backfill_units(self) -> None:
        """Pages indexed before unit vectors existed get their files once."""
        if self.units.complete():
            return
        index = load_page_index(self._settings.workspace)
        concepts = self._settings.workspace.concepts_dir
        missing = [e for e in index.entries.values() if not self.units.has(e.slug, e.content_hash)]
        self._embed_units([_page_doc(e, concepts) for e in missing])
        self.units.mark_complete()

    def _backfill_lines(self) -> None:
        """Episodes indexed before their lines were embedded get their unit files
        once (a full maintain's `_changed_docs` lists them until the marker is
        written; an episode indexed later gets its file as it is embedded)."""
        if self.units.complete(EPISODE_LINES):
            return
        missing, self._without_units = self._without_units, []
        self._embed_units(missing)
        self.units.mark_complete(EPISODE_LINES)

    def _embed_units(self, docs: list[_Doc]) -> None:
        """Unit files for docs whose chunks are already indexed, 256 at a time."""
        for start in range(0, len(docs), 256):
            batch = docs[start : start + 256]
            self._unit_vectors({d.slug: (d.title, self._chunks(d), d.content_hash) for d in batch})

    def _page_context(self, pages: dict[str, tuple[str, list[Chunk]]]) -> dict[str, Vectors]:
        model = self._embedders.get(DENSE_ML)
        limit = self._settings.tuning.multilingual_page_context
        return page_context(model, pages, limit) if model is not None else {}

    def _chunks(self, doc: _Doc) -> list[Chunk]:
        body = doc.text
        if body is None and doc.path is not None:
            try:
                _, body = split_frontmatter(decode_page(read_page_file(doc.path)))
            except (OSError, InvalidInputError):
                body = ""  # changed or vanished since the scan; the next maintain catches up
        prose, facts = split_facts(body or "")
        count, budget = self._embedder.count_tokens, self._embedder.max_tokens
        chunks = chunk_page(doc.title, prose, count, budget)
        if not facts:
            return chunks
        if len(chunks) == 1 and not chunks[0].text.removeprefix(f"{doc.title}\n\n").strip():
            chunks = []  # a page of facts alone: no empty prose chunk
        per_chunk = self._settings.tuning.facts_per_chunk
        texts, now = [i.text for i in facts], [i.current for i in facts]
        return chunks + chunk_facts(doc.title, texts, per_chunk, count, budget, len(chunks), now)

    def _read_state(self) -> dict[str, Any]:
        return read_index_state(self._state_path)

    def _claim(
        self, pages: dict[str, list[Any]], identity: str, avgdl: float | None, *, complete: bool
    ) -> None:
        """Write the index state: the pages whose points are all stored."""
        write_index_state(
            self._state_path,
            {
                "version": STATE_VERSION,
                "identity": identity,
                "pages": pages,
                "sparse_avgdl": avgdl,
                "complete": complete,
            },
        )

    def _drop_unclaimed(self, indexed: dict[str, list[Any]]) -> None:
        """Delete the points of every page the state does not claim."""
        unclaimed = [slug for slug in self._store.slug_counts() if slug not in indexed]
        if unclaimed:
            self._store.delete_slugs(unclaimed)


def _same(indexed: list[Any] | None, content_hash: str) -> bool:
    """Unchanged when the stored content hash matches."""
    return indexed is not None and indexed[0] == content_hash


def _capability_doc(cap: Capability, digest: str) -> _Doc:
    return _Doc(
        cap.slug,
        cap.title,
        cap.kind,
        digest,
        None,
        None,
        cap.origin_date,
        None,
        cap.text,
        meta=cap.meta,
    )


def _page_doc(entry: PageEntry, concepts: Path) -> _Doc:
    return _Doc(
        slug=entry.slug,
        title=entry.title,
        kind="page",
        content_hash=entry.content_hash,
        fresh_at=entry.fresh_at.timestamp() if entry.fresh_at else None,
        source=entry.source,
        origin_date=entry.origin_date,
        path=concepts / entry.path,
        text=None,
        quarantine=entry.quarantine,
    )


def _payload(doc: _Doc, chunk: Chunk) -> dict[str, Any]:
    return {
        "slug": doc.slug,
        "title": doc.title,
        "kind": HISTORY if chunk.history else doc.kind,
        "fresh_at": doc.fresh_at,
        "chunk": chunk.index,
        "text": chunk.text,
        "source": doc.source,
        "origin_date": doc.origin_date,
        "quarantine": doc.quarantine,
        "meta": doc.meta,
    }
