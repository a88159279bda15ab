"""Names for pages the filer creates: a title from the fact, a safe unique slug.

A title is the fact's leading named entity: the run of capitalised words
that opens the fact, unless that opening word is a function word, a common
sentence opener (a time word, a frequent verb), a gerund ("Painting is a
fun way for Melanie…") or a greeting, interjection, pronoun, contraction or
filler word (`lexicon.FILLER`: "Yeah", "I'm", "It"); then the first
capitalised run inside the sentence. A fact that names nothing gets no
title: a run of its ordinary words ("Prefer coffee black milk") reads as no
page's name. Deterministic and cheap: no tagger, no model.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Container

from substrate.index import STOPWORDS
from substrate.meaning.lexicon import FILLER
from substrate.meaning.words import kind_of_word, title_problem
from substrate.pages import slug_problem
from substrate.safety import linear, runs

_WORD = runs(r"[^\W\d_][\w'’-]*")
_HINT = linear(r"\[\[[^\]]*\]\]")
_SLUG_WORD = runs(r"\w+")
_CONNECTORS = frozenset({"of", "de", "da", "van", "von", "del", "la", "le", "and", "&"})
# Capitalised everywhere, yet never what a fact is about.
CALENDAR = frozenset(
    """january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday""".split()
)
# Words that carry no subject of their own in a casual note.
WEAK = frozenset(
    """ok okay well really just like think thought know knew feel felt guess thing things
    stuff lot lots much good great bad nice yeah yes no so went go going gone get got
    getting did done doing said say says way kind sort actually pretty""".split()
)
# Words that open a note without naming anything.
OPENERS = frozenset(
    """yesterday today tomorrow tonight recently lately also then after before last next
    this that these those there here when while during since every each some many most
    one two three first finally later earlier now soon always never often usually maybe
    perhaps please remember remind note todo went got bought made had saw met took said
    told called started finished need needs buy call check ask try get go make see meet
    visit book pay send read watch learn plan plans planning booked paid sent switched
    switch moved move started start stopped stop quit prefer prefers love loves like likes
    hate hates want wants tried changed joined left write give tell help show find suggest
    recommend explain create generate list describe compare summarize summarise translate
    provide draft rewrite add remove keep use can could would should will is are was were
    do does did have has""".split()
)
MAX_TITLE_WORDS = 4
MAX_SLUG_CHARS = 60
# Not a subject: question words, verbs of asking and doing, quantities and the
# adjectives and adverbs a request is made of ("some effective tips").
NOT_SUBJECT = frozenset(
    """what which who whom whose how why where when whether any some specific different
    effective best better good great new old more most much many few several other another
    own same such certain particular various important useful helpful possible simple easy
    quick real really very quite also just still even ever already again always never often
    usually sometimes maybe perhaps probably actually basically definitely especially
    recently currently lately today tomorrow yesterday tonight thanks thank please sure
    okay ok hi hello hey tips tip ideas idea ways way advice suggestions suggestion
    recommendations recommendation examples example information info steps step things
    thing options option questions question help something anything everything nothing
    someone anyone everyone lot lots bit kind sort type types part parts time times day days
    week weeks month months year years able trying looking wondering thinking going getting
    making taking having doing using finding planning considering hoping want wants wanted
    need needs needed know knew think thought feel felt like liked love loved enjoy enjoyed
    try tried make made take took give gave tell told show showed find found suggest
    suggested recommend recommended explain create write rewrite summarize summarise
    describe discuss compare provide list share start started get got go went come came
    see saw look looked keep kept let put set seem seems seemed mean means meant sound
    sounds great interesting awesome amazing perfect exciting excited fun nice cool primary
    main key major benefits benefit greater depth pros cons difference differences""".split()
)


def leading_name(text: str) -> str | None:
    """The fact's leading named entity, or None when it names none."""
    clean = _HINT.sub(" ", text.split("\n", 1)[0])
    words = [(m.group(), m.start()) for m in _WORD.finditer(clean)]
    for i, (word, start) in enumerate(words):
        if not word[0].isupper() or word.lower() in CALENDAR:
            continue
        if _filler(word.lower()):
            continue  # "Yeah", "I'm", "It": never a name, wherever they stand
        if _opens_sentence(clean, start) and _plain_opener(word):
            continue
        name = _capital_run(words, i)
        if len(name) < 2:
            continue  # a lone letter ("D") is no name
        if title_problem(name) is not None:
            continue  # "Perfect", "Currently", "Finally": a capital, not a name
        return name
    return None  # nothing nameable: a run of ordinary words is no title


def _filler(word: str) -> bool:
    word = word.replace("’", "'")
    return word in STOPWORDS or word in OPENERS or word in WEAK or word in FILLER


def _capital_run(words: list[tuple[str, int]], i: int) -> str:
    run = [words[i][0]]
    for word, _ in words[i + 1 :]:
        if len(run) >= MAX_TITLE_WORDS or _filler(word.lower()):
            break
        if word[0].isupper() or (word.lower() in _CONNECTORS and len(run) < MAX_TITLE_WORDS - 1):
            run.append(word)
        else:
            break
    while run and run[-1].lower() in _CONNECTORS:
        run.pop()
    return " ".join(w[:-2] if w.endswith(("'s", "’s")) else w for w in run)


def _plain_opener(word: str) -> bool:
    lower = word.lower()
    return lower in STOPWORDS or lower in OPENERS or (lower.endswith("ing") and len(lower) > 5)


def _opens_sentence(text: str, start: int) -> bool:
    at = start
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at == 0 or text[at - 1] in '.!?:;\n"“('


def subject_phrase(text: str) -> str | None:
    """What a fact that names nothing is about, as a noun phrase: its first run
    of two to four content words that may name a subject ("music theory",
    "turbinado sugar", "العزف على العود"), joined by "of", "and", "على"…,
    never opening with or holding a verb, an adverb or an adjective
    (`meaning.words`), never a lone word (read alone it would make a title like
    "Perfect" or "Finish")."""
    clean = _HINT.sub(" ", text.split("\n", 1)[0])[:400]
    found = [(m.group(), m.start()) for m in _WORD.finditer(clean)]
    run: list[str] = []
    for i, (word, start) in enumerate(found):
        lower = word.lower().replace("’", "'")
        written = word if word[:1].isupper() and not _opens_sentence(clean, start) else lower
        if _names(word) and (not run or _joined(clean, start)):
            run.append(word if word.isupper() else written)
            if _count(run) == MAX_TITLE_WORDS:
                break
            continue
        following = found[i + 1] if i + 1 < len(found) else None
        if (
            run
            and lower in _JOINERS
            and following is not None
            and _names(following[0])
            and _joined(clean, start)
            and _count(run) < MAX_TITLE_WORDS - 1
        ):
            run.append(lower)
            continue
        if _count(run) >= 2:
            break
        run = [word if word.isupper() else written] if _names(word) else []
    while run and run[-1] in _JOINERS:
        run.pop()
    if _count(run) < 2:
        return None
    phrase = " ".join(run)
    return phrase[:1].upper() + phrase[1:]


_JOINERS = frozenset({"of", "and", "على", "في", "من"})


def _names(word: str) -> bool:
    """A word that may stand in a title: content, and no verb, adverb or adjective."""
    return _content(word.lower().replace("’", "'")) and kind_of_word(word) is None


def _count(run: list[str]) -> int:
    return sum(1 for w in run if w not in _JOINERS)


def _content(word: str) -> bool:
    return (
        len(word) > 2
        and "'" not in word
        and word not in STOPWORDS
        and word not in NOT_SUBJECT
        and word not in WEAK
        and word not in OPENERS
        and word not in FILLER
        and word not in CALENDAR
    )


def _joined(text: str, start: int) -> bool:
    """Only a space between this word and the one before (no comma, no stop)."""
    return start > 0 and text[start - 1] == " " and text[start - 2 : start - 1].isalnum()


def slugify(title: str) -> str:
    """Lower-case words joined by `-`, letters of any script kept, marks dropped."""
    folded = unicodedata.normalize("NFKD", title.casefold())
    kept = "".join(ch for ch in folded if not unicodedata.combining(ch))
    words = _SLUG_WORD.findall(kept)
    slug = "-".join(words)[:MAX_SLUG_CHARS].strip("-")
    return slug or "note"


def unique_slug(base: str, taken: Container[str]) -> str:
    """`base`, or `base-2`, `base-3`… : the first that no page (nor this batch) has."""
    if slug_problem(base) is not None:
        base = slugify(base)
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug
