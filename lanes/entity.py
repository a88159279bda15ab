"""The `entity` lane: pages whose title or an alias is named in the turn text.

Names and turn text are folded the same way (NFKC, casefold) and split into
Unicode words, so matching is case-insensitive, respects word boundaries,
handles multi-word names and works in any script that separates words.
One matcher holds every name as a tuple of words, looked up by the turn's
word n-grams: the cost per turn is (words in the turn) x (longest name),
whatever the number of pages, where a regex alternation over 10,000 pages'
names would be tried at every character. The matcher is rebuilt only when
the PageIndex it was built from changes (`matcher_for`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from lanes.candidates import Candidate
from substrate.bm25 import STOPWORDS
from substrate.page_index import PageEntry, PageIndex

LANE = "entity"
MAX_NAME_WORDS = 8
_WORD = re.compile(r"\w+")


def name_words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


@dataclass
class EntityMatcher:
    """Every page name (title and aliases) as a word tuple → the slugs it names."""

    fingerprint: str
    names: dict[tuple[str, ...], set[str]] = field(default_factory=dict)
    longest: int = 0

    @classmethod
    def build(cls, entries: Iterable[PageEntry], fingerprint: str = "") -> EntityMatcher:
        matcher = cls(fingerprint)
        for entry in entries:
            for name in (entry.title, *entry.aliases):
                words = name_words(name)
                # A name of only stopwords ("The", "It") would fire on every turn.
                if not words or len(words) > MAX_NAME_WORDS or set(words) <= STOPWORDS:
                    continue
                matcher.names.setdefault(words, set()).add(entry.slug)
                matcher.longest = max(matcher.longest, len(words))
        return matcher

    def match(self, text: str) -> list[Candidate]:
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
        return [
            Candidate(slug, LANE, size + 0.1 * min(mentions, 5), f"names '{shown}'")
            for slug, (size, mentions, shown) in ranked
        ]


def index_fingerprint(index: PageIndex) -> str:
    """Changes whenever a page is added, removed or edited."""
    digest = hashlib.blake2b(digest_size=16)
    for slug in sorted(index.entries):
        digest.update(slug.encode())
        digest.update(index.entries[slug].content_hash.encode())
    return digest.hexdigest()


def matcher_for(index: PageIndex, previous: EntityMatcher | None = None) -> EntityMatcher:
    """`previous` when it was built from the same pages, else a fresh matcher."""
    fingerprint = index_fingerprint(index)
    if previous is not None and previous.fingerprint == fingerprint:
        return previous
    return EntityMatcher.build(index.entries.values(), fingerprint)
