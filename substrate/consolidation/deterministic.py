"""The deterministic filer: each entry routed by subject, then by a cascade, offline.

1. `hint`: the entry's first `[[slug]]` hint (a page made there if none exists);
2. `topic`: a fact the user states about themselves goes onto their own page
   for its topic (`me/home`, `me/work`, … : `lexicon.TOPICS`), by the slot it
   states or the words it uses (two topic words, or one in a short fact); one
   that names no topic of its own, said within `CONTINUITY_S` of the user's
   previous fact, continues the conversation on that fact's page;
3. `person`: a fact about a named person goes onto the page of that name
   (recorded as `entity`), or a new one: a relative named as one ("my sister
   Anika") makes `people/anika`, "Anika (sister)"; a cue line ("Caroline: I
   …") makes its speaker's;
   a fact about one of the user's endeavours (a startup, a course, a trip:
   `endeavours`) goes onto its page under `projects/`, and so does one
   that says an endeavour's own name;
4. `entity`: a page whose title or alias the fact names (the `entity` lane's
   matcher; among equally good names, the one named first), never for the
   user's own words (those go by topic, not under a name they mention);
5. `search`: the best hybrid-search page when its best chunk's cosine (MiniLM
   or multilingual) clears `consolidation_search_floor` and its fused score
   leads the runner-up's by `consolidation_search_margin`;
6. `new`: a new page titled by the name the fact leads with;
7. `inbox`: a fact that names nothing continues the page of the fact said just
   before it (within `CONTINUITY_S`: the same conversation), else gets a new
   page titled by what it is about (`naming.subject_phrase`: "Music theory"),
   else goes to the dated inbox page.

Every placement carries the fact's slot reading, for the writer's lifecycle
decision (`lifecycle`), and the other pages the fact names, which its page
links. Pages this batch creates join the matcher at once, so the second fact
about a new name goes where the first went. Which step decided is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from substrate.config import Settings
from substrate.consolidation.counts import changes_a_measure
from substrate.consolidation.endeavours import FOLDER as ENDEAVOURS, endeavour_of
from substrate.consolidation.naming import leading_name, slugify, subject_phrase, unique_slug
from substrate.consolidation.plan import Placement, Plan
from substrate.index import EntityMatcher, Hit, SearchIndex, name_words
from substrate.intake import BufferEntry
from substrate.meaning.attribution import Attribution
from substrate.meaning.lexicon import TOPICS
from substrate.meaning.reading import NOTHING, read_text
from substrate.meaning.slots import SlotReading
from substrate.meaning.subjects import Subject, topic_score
from substrate.meaning.typing import FamilyHead, typed
from substrate.pages import PageIndex, slug_problem
from substrate.safety import linear

_HINT = linear(r"\[\[[^\]]*\]\]")
SEARCH_K = 3
MINE = "me"  # the user's own pages, one per topic
STRONG_TOPIC = 2  # topic words that place a long fact on their own
SHORT_FACT = 25  # words: a fact this short is placed by one topic word
CONTINUITY_S = 30 * 60  # a fact within this of the one before is the same conversation
PEOPLE = "people"
PETS = "pets"


@dataclass
class Batch:
    """What a planner sees: the entries to place and the corpus as it stands."""

    entries: list[BufferEntry]
    index: PageIndex
    matcher: EntityMatcher
    views: dict[str, str] = field(default_factory=dict)
    repairs: list[str] = field(default_factory=list)
    moves: dict[str, str] = field(default_factory=dict)  # a moved slug -> where it is now

    def hints(self, entry: BufferEntry) -> list[str]:
        """The entry's hints, a moved page's old slug read as its new one."""
        return [
            self.moves[h] if h not in self.index.entries and h in self.moves else h
            for h in entry.hints
        ]


def search_query(text: str, query_bytes: int) -> str:
    """What filing searches for a fact's text: cut to the query bound."""
    return text.encode("utf-8")[:query_bytes].decode("utf-8", "ignore")


def fact_text(entry: BufferEntry) -> str:
    """The entry's text without its `[[slug]]` hints, for matching and search."""
    return " ".join(_HINT.sub(" ", entry.text).split())


class DeterministicFiler:
    name = "deterministic"

    def __init__(self, settings: Settings, search: SearchIndex | None) -> None:
        self._tuning = settings.tuning
        self._query_bytes = settings.limits.query_bytes
        self._search = search
        # the family head types what the rules leave unslotted (no embedder: rules alone)
        self._head = FamilyHead(settings.embed) if settings.embed is not None else None

    def plan(self, batch: Batch) -> Plan:
        run = BatchRun(batch)
        return Plan([self.place(entry, run) for entry in batch.entries])

    def candidates(self, entry: BufferEntry, batch: Batch) -> list[str]:
        """Every page the cascade would consider for `entry`, best first: the one
        it would choose, when that page exists, then the rest."""
        chosen = self.place(entry, BatchRun(batch)).slug
        found = [chosen] if chosen in batch.index.entries else []
        found += [h for h in batch.hints(entry) if h in batch.index.entries]
        found += [m.slug for m in batch.matcher.match(fact_text(entry))]
        found += [h.slug for h in self._hits(fact_text(entry), batch.index)]
        return list(dict.fromkeys(found))

    def place(self, entry: BufferEntry, run: BatchRun) -> Placement:
        text = fact_text(entry)
        meaning = read_text(text)
        if meaning.passed_on:
            return self._passed_on(entry, text, meaning.attribution, run)
        subject = meaning.subject
        reading = typed(meaning, self._head)
        placement = self._hint(entry, text, run) or self._by_subject(
            entry, text, subject, reading, run
        )
        # The user's own words go by topic, never under a name they mention.
        steps = (self._searched,) if subject.kind == "me" else (self._entity, self._searched)
        for step in steps:
            placement = placement or step(entry, text, run)
        if placement is None:
            placement = self._new(entry, text, subject.kind == "me", run)
        named = [s for s in run.named_pages(text) if s != placement.slug]
        related = tuple(dict.fromkeys([*placement.related, *named]))
        if placement.slug is not None:
            run.said(entry, placement.slug)
        nearby: tuple[str, ...] = ()
        # what it ends may sit elsewhere ("Jordan moved out": on me/family; the
        # person's new vet beside the old one on their animal's page)
        mine_single = reading.single and subject.kind == "me"
        if reading.olds or reading.things or mine_single or changes_a_measure(text):
            nearby = tuple(h.slug for h in self._hits(text, run.index) if h.slug != placement.slug)
        return replace(placement, reading=reading, related=related, nearby=nearby)

    def _passed_on(
        self, entry: BufferEntry, text: str, said: Attribution, run: BatchRun
    ) -> Placement:
        """Words the person passes on: a note on the speaker's page when the text
        names one (made when missing), else where a hint, a name or the day's
        inbox puts it; never one of the person's own pages, and no slot."""
        what = f"passed on ({said.why})"
        placement = self._hint(entry, text, run)
        if placement is None and said.speaker is not None:
            placement = self._speaker(entry, said, run, what)
        if placement is None:
            placement = self._entity(entry, text, run)
        if placement is None:
            placement = self._inbox(entry, run, f"{what}, naming no speaker: the day's inbox")
        reason = f"{what}: kept as a note, takes no slot; {placement.reason}"
        if placement.slug is not None:
            run.said(entry, placement.slug)
        return replace(placement, reason=reason, reading=NOTHING)

    def _speaker(
        self, entry: BufferEntry, said: Attribution, run: BatchRun, what: str
    ) -> Placement:
        """The page of the person whose words these are: one known by that name
        or relation, or a new `people/<name>`."""
        speaker = str(said.speaker)
        relation = said.relation
        name = (
            relation
            if relation is not None and speaker.split()[0].lower() in ("my", "our")
            else speaker
        )
        if relation is not None and name == relation:
            page = run.related(relation)
            if page is not None:
                return Placement(entry, "file", page, "voice", f"your {relation}'s words")
        else:
            known = _known(name, run)
            if known is not None:
                return Placement(entry, "file", known[0], "voice", f"{known[1]}'s words")
        title = name[:1].upper() + name[1:]
        slug = unique_slug(f"{PEOPLE}/{slugify(name)}", run)
        run.add(slug, title)
        return Placement(entry, "file", slug, "voice", f"{title}'s words, a new page", title)

    def _inbox(self, entry: BufferEntry, run: BatchRun, why: str) -> Placement:
        slug = f"inbox/{entry.at:%Y-%m-%d}"
        if slug not in run.index.entries and slug not in run.created:
            run.add(slug, f"Inbox {entry.at:%Y-%m-%d}", named=False)
        return Placement(entry, "file", slug, "inbox", why, run.title(slug))

    def _by_subject(
        self, entry: BufferEntry, text: str, subject: Subject, reading: SlotReading, run: BatchRun
    ) -> Placement | None:
        if subject.kind == "named" and subject.name:
            return self._person(entry, subject, run)
        if subject.kind != "me":
            return None
        if reading.slot == "pet" and reading.value:
            return self._pet(entry, text, reading.value, run)
        if reading.topic:
            return self._mine(entry, reading.topic, run, reading)
        endeavour = self._endeavour(entry, text, run)
        if endeavour is not None:
            return endeavour
        topic, words = topic_score(text)
        if words >= STRONG_TOPIC or (topic and len(text.split()) <= SHORT_FACT):
            return self._mine(entry, str(topic), run)
        if reading.cessation:
            return self._mine(entry, topic or "about", run)  # the writer finds what it ends
        follows = run.follows(entry)
        if follows is not None:
            why = f"continues the conversation filed on {follows} (no topic of its own)"
            return Placement(entry, "file", follows, "topic", why, run.title(follows))
        return self._mine(entry, topic, run) if topic else None

    def _pet(self, entry: BufferEntry, text: str, value: str, run: BatchRun) -> Placement:
        """A pet's own page, named by its name as written ("Biscuit"), linking the
        person's pets page; one page per pet however it is mentioned later."""
        name = next((w for w in text.replace(",", " ").split() if w.lower() == value), value)
        name = name[:1].upper() + name[1:]
        mine = f"{MINE}/pets"
        known = _known(name, run)
        if known is not None:
            return Placement(
                entry, "file", known[0], "entity", f"about '{known[1]}'", related=(mine,)
            )
        slug = unique_slug(f"{PETS}/{slugify(name)}", run)
        run.add(slug, name)
        why = f"about your pet '{name}', a new page"
        return Placement(entry, "file", slug, "person", why, name, related=(mine,))

    def _mine(
        self, entry: BufferEntry, topic: str, run: BatchRun, typed: SlotReading | None = None
    ) -> Placement:
        """The user's own page for `topic` (made when missing)."""
        slug, title = f"{MINE}/{topic}", TOPICS[topic]
        made = slug not in run
        if made:
            run.add(slug, title, named=False)
        reading = typed or read_text(fact_text(entry)).slot
        why = f"about you: {topic}" + (f" (slot {reading.slot})" if reading.slot else "")
        return Placement(entry, "file", slug, "topic", why, title if made else None)

    def _endeavour(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        """The page of the endeavour the fact names (made on first mention), or of
        one whose own name it says, linking the person's page for its topic."""
        found = endeavour_of(text)
        if found is not None:
            mine = f"{MINE}/{found.topic}"
            known = run.named(found.name)
            slug = f"{ENDEAVOURS}/{slugify(found.title)}"
            if known is not None and known[0].startswith(f"{ENDEAVOURS}/"):
                slug = known[0]
            if slug in run:
                return Placement(
                    entry, "file", slug, "endeavour", f"about '{found.title}'", related=(mine,)
                )
            run.add(slug, found.title)
            run.add(slug, found.name)  # a later fact names it by its own name
            return Placement(
                entry,
                "file",
                slug,
                "endeavour",
                f"about '{found.title}', a new page",
                found.title,
                related=(mine,),
                aliases=(found.name,) if found.name != found.title else (),
            )
        named = [m for m in run.matcher.match(text) if m.slug.startswith(f"{ENDEAVOURS}/")]
        made = run.named(text)
        if made is not None and made[0].startswith(f"{ENDEAVOURS}/"):
            return Placement(entry, "file", made[0], "endeavour", f"names '{made[2]}'")
        if named:
            return Placement(entry, "file", named[0].slug, "endeavour", f"names '{named[0].name}'")
        return None

    def _person(self, entry: BufferEntry, subject: Subject, run: BatchRun) -> Placement | None:
        """The page of the person the fact is about: one named by that name, or a
        new one (`people/<name>` for a relative, titled with the relation)."""
        name = str(subject.name)
        known = _known(name, run)
        if known is not None:
            return Placement(entry, "file", known[0], "entity", f"about '{known[1]}'")
        if subject.relation is None and not subject.cue:
            return None  # a sentence that opens with a name: the cascade decides
        title = f"{name} ({subject.relation})" if subject.relation else name
        base = f"{PEOPLE}/{slugify(name)}" if subject.relation else slugify(name)
        slug = unique_slug(base, run)
        run.add(slug, name)
        why = f"about '{name}', a new page" + (
            f" (your {subject.relation})" if subject.relation else ""
        )
        return Placement(
            entry, "file", slug, "person", why, title, aliases=(name,) if subject.relation else ()
        )

    def _hint(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        for hint in run.batch.hints(entry):
            if slug_problem(hint) is not None:
                continue
            if hint in run.index.entries or hint in run.created:
                return Placement(entry, "file", hint, "hint", f"hinted [[{hint}]]")
            title = hint.rsplit("/", 1)[-1].replace("-", " ").strip().capitalize() or hint
            run.add(hint, title)
            return Placement(entry, "file", hint, "hint", f"hinted [[{hint}]] (a new page)", title)
        return None

    def _entity(self, entry: BufferEntry, text: str, run: BatchRun) -> Placement | None:
        matches = [m for m in run.matcher.match(text) if not m.slug.startswith(f"{MINE}/")]
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
        query = search_query(text, self._query_bytes)
        return [h for h in self._search.search(query, SEARCH_K) if h.slug in index.entries]

    def _new(self, entry: BufferEntry, text: str, mine: bool, run: BatchRun) -> Placement:
        """A new page titled by the name the fact leads with (never a name in the
        user's own words) or, for a fact that names nothing and continues no
        conversation, by what it is about; the day's inbox only when neither."""
        title = None if mine else leading_name(text)
        follows = run.follows(entry) if title is None else None
        if follows is not None:
            why = f"names nothing: continues the conversation filed on {follows}"
            return Placement(entry, "file", follows, "inbox", why, run.title(follows))
        about = subject_phrase(text) if title is None else None
        if about is not None:
            slug = unique_slug(slugify(about), run)
            run.add(slug, about, named=False)
            return Placement(entry, "file", slug, "new", f"a new page about '{about}'", about)
        if title is None:
            return self._inbox(entry, run, "nothing nameable: the day's inbox")
        slug = unique_slug(slugify(title), run)
        run.add(slug, title)
        return Placement(entry, "file", slug, "new", f"a new page for '{title}'", title)


class BatchRun:
    """One batch's view of the corpus: the pages it has, plus the pages it creates."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self.index = batch.index
        self.matcher = batch.matcher
        self.created: dict[str, str] = {}  # slug -> title
        self._last: tuple[float, str] | None = None  # the last fact placed: when, where
        self._names: dict[tuple[str, ...], str] = {}

    def __contains__(self, slug: object) -> bool:
        return slug in self.index.entries or slug in self.created

    def add(self, slug: str, title: str, named: bool = True) -> None:
        self.created.setdefault(slug, title)
        words = name_words(title)
        if named and words:
            self._names.setdefault(words, slug)

    def title(self, slug: str) -> str | None:
        return self.created.get(slug)

    def said(self, entry: BufferEntry, slug: str) -> None:
        """The batch's last fact went to `slug`."""
        self._last = (entry.at.timestamp(), slug)

    def follows(self, entry: BufferEntry) -> str | None:
        """Where the previous fact went, when `entry` was said soon after it."""
        if self._last is None:
            return None
        at, slug = self._last
        return slug if abs(entry.at.timestamp() - at) <= CONTINUITY_S else None

    def named_pages(self, text: str) -> list[str]:
        """Every page `text` names (those made this batch too), but the user's own."""
        found = [m.slug for m in self.matcher.match(text)]
        words = name_words(text)
        found += [s for n, s in self._names.items() if _first_position(words, n) < len(words)]
        return [s for s in dict.fromkeys(found) if not s.startswith(f"{MINE}/")]

    def related(self, relation: str) -> str | None:
        """The page of the person the user calls their `relation` ("Anika
        (sister)"), one this batch made too."""
        mark = f"({relation})"
        for slug, title in self.created.items():
            if title.endswith(mark):
                return slug
        for slug, entry in self.index.entries.items():
            if entry.title.endswith(mark) or slug == f"{PEOPLE}/{relation}":
                return slug
        return None

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


def _known(name: str, run: BatchRun) -> tuple[str, str] | None:
    """The page already known by `name` (made this batch, or matched by the
    corpus's names, never one of the person's own pages) and the name it goes
    by; the longer name wins a tie between the two."""
    found = [m for m in run.matcher.match(name) if not m.slug.startswith(f"{MINE}/")]
    made = run.named(name)
    if made is not None and (not found or made[1] >= found[0].size):
        return made[0], name
    if found:
        return found[0].slug, found[0].name
    return None


def _first_position(words: tuple[str, ...], name: tuple[str, ...]) -> int:
    """Where `name` first occurs in `words` (len(words) when it does not)."""
    n = len(name)
    for i in range(len(words) - n + 1):
        if words[i : i + n] == name:
            return i
    return len(words)
