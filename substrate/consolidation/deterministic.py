"""The deterministic filer: each entry routed by a cascade, offline.

1. `hint`: the entry's first `[[slug]]` hint (a page made there if none exists);
2. `entity`: a page whose title or alias the fact names (the `entity` lane's
   matcher; among equally good names, the one named first);
3. `search`: the best hybrid-search page when its best chunk's cosine (MiniLM
   or multilingual) clears `consolidation_search_floor` and its fused score
   leads the runner-up's by `consolidation_search_margin`;
4. `new`: a new page titled by the fact's leading name or noun phrase;
5. `inbox`: the dated inbox page, when nothing nameable is found.

Pages this batch creates join the matcher at once, so the second fact about
a new name goes where the first went. Which step decided is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from substrate.config import Settings
from substrate.consolidation.naming import leading_name, slugify, unique_slug
from substrate.consolidation.plan import Placement, Plan
from substrate.index import EntityMatcher, Hit, SearchIndex, name_words
from substrate.intake import BufferEntry
from substrate.pages import PageIndex, slug_problem
from substrate.safety import linear

_HINT = linear(r"\[\[[^\]]*\]\]")
SEARCH_K = 3


@dataclass
class Batch:
    """What a planner sees: the entries to place and the corpus as it stands."""

    entries: list[BufferEntry]
    index: PageIndex
    matcher: EntityMatcher
    views: dict[str, str] = field(default_factory=dict)
    repairs: list[str] = field(default_factory=list)


def fact_text(entry: BufferEntry) -> str:
    """The entry's text without its `[[slug]]` hints, for matching and search."""
    return " ".join(_HINT.sub(" ", entry.text).split())


class DeterministicFiler:
    name = "deterministic"

    def __init__(self, settings: Settings, search: SearchIndex | None) -> None:
        self._tuning = settings.tuning
        self._query_bytes = settings.limits.query_bytes
        self._search = search

    def plan(self, batch: Batch) -> Plan:
        run = BatchRun(batch)
        return Plan([self.place(entry, run) for entry in batch.entries])

    def candidates(self, entry: BufferEntry, batch: Batch) -> list[str]:
        """Every page the cascade would consider for `entry`, best first."""
        found = [h for h in entry.hints if h in batch.index.entries]
        found += [m.slug for m in batch.matcher.match(fact_text(entry))]
        found += [h.slug for h in self._hits(fact_text(entry), batch.index)]
        return list(dict.fromkeys(found))

    def place(self, entry: BufferEntry, run: BatchRun) -> Placement:
        text = fact_text(entry)
        for step in (self._hint, self._entity, self._searched):
            placement = step(entry, text, run)
            if placement is not None:
                return placement
        return self._new(entry, text, run)

    def _hint(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        for hint in entry.hints:
            if slug_problem(hint) is not None:
                continue
            if hint in run.index.entries or hint in run.created:
                return Placement(entry, "file", hint, "hint", f"hinted [[{hint}]]")
            title = hint.rsplit("/", 1)[-1].replace("-", " ").strip().capitalize() or hint
            run.add(hint, title)
            return Placement(entry, "file", hint, "hint", f"hinted [[{hint}]] (a new page)", title)
        return None

    def _entity(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        matches = run.matcher.match(text)
        new = run.named(text)
        if not matches and new is None:
            return None
        if new is not None and (not matches or new[1] >= matches[0].size):
            return Placement(entry, "file", new[0], "entity", f"names '{new[2]}'")
        best = matches[0]
        tied = [m for m in matches if (m.size, m.mentions) == (best.size, best.mentions)]
        if len(tied) > 1:  # "Caroline and Melanie": the one named first
            words = name_words(text)
            best = min(tied, key=lambda m: _first_position(words, name_words(m.name)))
        return Placement(entry, "file", best.slug, "entity", f"names '{best.name}'")

    def _searched(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        hits = self._hits(text, run.index)
        if not hits:
            return None
        best = hits[0]
        cosine = max(best.dense_score or 0.0, best.dense_ml_score or 0.0)
        lead = best.score - hits[1].score if len(hits) > 1 else best.score
        if cosine < self._tuning.consolidation_search_floor:
            return None
        if lead < self._tuning.consolidation_search_margin:
            return None
        reason = f"search: cosine {cosine:.2f}, leads the runner-up by {lead:.2f}"
        return Placement(entry, "file", best.slug, "search", reason)

    def _hits(self, text: str, index: PageIndex) -> list[Hit]:
        if self._search is None or not text.strip() or not index.entries:
            return []
        query = text.encode("utf-8")[: self._query_bytes].decode("utf-8", "ignore")
        return [h for h in self._search.search(query, SEARCH_K) if h.slug in index.entries]

    def _new(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement:
        title = leading_name(text)
        if title is None:
            slug = f"inbox/{entry.at:%Y-%m-%d}"
            if slug not in run.index.entries and slug not in run.created:
                run.add(slug, f"Inbox {entry.at:%Y-%m-%d}", named=False)
            return Placement(
                entry, "file", slug, "inbox", "nothing nameable: the day's inbox", run.title(slug)
            )
        slug = unique_slug(slugify(title), run)
        run.add(slug, title)
        return Placement(entry, "file", slug, "new", f"a new page for '{title}'", title)


class BatchRun:
    """One batch's view of the corpus: the pages it has, plus the pages it creates."""

    def __init__(self, batch: Batch) -> None:
        self.index = batch.index
        self.matcher = batch.matcher
        self.created: dict[str, str] = {}  # slug -> title
        self._names: dict[tuple[str, ...], str] = {}

    def __contains__(self, slug: object) -> bool:
        return slug in self.index.entries or slug in self.created

    def add(self, slug: str, title: str, named: bool = True) -> None:
        self.created[slug] = title
        words = name_words(title)
        if named and words:
            self._names.setdefault(words, slug)

    def title(self, slug: str) -> str | None:
        return self.created.get(slug)

    def named(self, text: str) -> tuple[str, int, str] | None:
        """The longest name of a page made this batch that `text` names (the one
        named first, among equally long ones)."""
        words = name_words(text)
        found = [
            (-len(name), position, slug, name)
            for name, slug in self._names.items()
            if (position := _first_position(words, name)) < len(words)
        ]
        if not found:
            return None
        size, _, slug, name = min(found)
        return slug, -size, " ".join(name)


def _first_position(words: tuple[str, ...], name: tuple[str, ...]) -> int:
    """Where `name` first occurs in `words` (len(words) when it does not)."""
    n = len(name)
    for i in range(len(words) - n + 1):
        if words[i : i + n] == name:
            return i
    return len(words)
