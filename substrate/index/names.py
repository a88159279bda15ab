"""Which pages a text names: a title or an alias, matched as folded words.

The v3 `entity` lane and consolidation's filer both ask this matcher.

Names and turn text are folded the same way (NFKC, casefold; Arabic marks,
letter variants, clitics and inflections) and split into Unicode words, so
matching is case-insensitive, respects word boundaries, handles multi-word
names and works in any script that separates words.
One matcher holds every name as a tuple of words, looked up by the turn's
word n-grams: the cost per turn is (words in the turn) x (longest name),
whatever the number of pages, where a regex alternation over 10,000 pages'
names would be tried at every character. The matcher is rebuilt only when
the PageIndex changes, and then only for the pages that changed (`matcher_for`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from substrate.index import STOPWORDS, arabic_term, has_arabic, strip_marks
from substrate.pages import PageEntry, PageIndex
from substrate.safety.patterns import runs

LANE = "entity"
MAX_NAME_WORDS = 8
_WORD = runs(r"\w+")


def name_words(text: str) -> tuple[str, ...]:
    """Folded words; an Arabic word as its BM25 term, so "وليلى" names ليلى."""
    words = _WORD.findall(strip_marks(unicodedata.normalize("NFKC", text)).casefold())
    return tuple(arabic_term(w) if has_arabic(w) else w for w in words)


@dataclass(frozen=True, slots=True)
class NameMatch:
    """A page named in the text: its longest name's word count, how many times
    any of its names occurs, and that longest name as matched."""

    slug: str
    size: int
    mentions: int
    name: str


@dataclass
class EntityMatcher:
    """Every page name (title and aliases) as a word tuple → the slugs it names."""

    names: dict[tuple[str, ...], set[str]] = field(default_factory=dict)
    longest: int = 0
    source: PageIndex | None = None  # the index these names were read from

    @classmethod
    def build(cls, entries: Iterable[PageEntry]) -> EntityMatcher:
        matcher = cls()
        for entry in entries:
            matcher.add(entry)
        return matcher

    def add(self, entry: PageEntry) -> None:
        for words in _names(entry):
            self.names.setdefault(words, set()).add(entry.slug)
            self.longest = max(self.longest, len(words))

    def remove(self, entry: PageEntry) -> None:
        # `longest` may now overshoot: that costs a few empty lookups, never a miss.
        for words in _names(entry):
            slugs = self.names.get(words)
            if slugs is not None:
                slugs.discard(entry.slug)
                if not slugs:
                    del self.names[words]

    def match(self, text: str) -> list[NameMatch]:
        """Pages named in `text`, best first: more words named, then more mentions."""
        words = name_words(text)
        found: dict[str, tuple[int, int, str]] = {}  # slug -> (longest match, mentions, name)
        for start in range(len(words)):
            for size in range(1, min(self.longest, len(words) - start) + 1):
                name = words[start : start + size]
                for slug in self.names.get(name, ()):
                    best, mentions, shown = found.get(slug, (0, 0, ""))
                    if size > best:
                        best, shown = size, " ".join(name)
                    found[slug] = (best, mentions + 1, shown)
        ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
        return [NameMatch(slug, size, mentions, shown) for slug, (size, mentions, shown) in ranked]


def _names(entry: PageEntry) -> set[tuple[str, ...]]:
    names = set()
    for name in (entry.title, *entry.aliases):
        words = name_words(name)
        # A name of only stopwords ("The", "It") would fire on every turn.
        if words and len(words) <= MAX_NAME_WORDS and not set(words) <= STOPWORDS:
            names.add(words)
    return names


def matcher_for(index: PageIndex, previous: EntityMatcher | None = None) -> EntityMatcher:
    """A matcher for `index`: `previous` brought up to date in place when given.

    A live PageIndex keeps the entry objects of unchanged pages, so the
    difference is found by identity and only changed pages are re-read: one
    page written into 10,000 costs one page's names, not a rebuild."""
    if previous is None or previous.source is None:
        matcher = EntityMatcher.build(index.entries.values())
        matcher.source = index
        return matcher
    if previous.source is index:
        return previous
    old, new = previous.source.entries, index.entries
    for slug, entry in old.items():
        if new.get(slug) is not entry:
            previous.remove(entry)
    for slug, entry in new.items():
        if old.get(slug) is not entry:
            previous.add(entry)
    previous.source = index
    return previous
