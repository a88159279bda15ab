"""Who a fact is about, read without a model, and that fact in the subject's words.

- A **cue line** ("Caroline: I moved to Sweden") is its speaker's own
  statement: the subject is the speaker.
- A **first-person** fact ("I moved to Leeds", "أسكن في عمّان") is the
  user's, unless it opens by naming a relative ("My sister Anika moved to
  Berlin", "أختي ليلى تعمل في دبي"): then it is about that person.
- A fact that **opens with a name** ("Caroline joined a choir") is about that
  person or thing, unless the user speaks first ("Yeah so I met Jon").
- Anything else has no subject here; the filer's search and naming decide.

`Subject.own` is the fact told in the first person, as its subject would say
it ("Anika moved to Berlin" -> "I moved to Berlin"), so one set of slot
patterns (`slots`) reads every subject's facts. A greeting, interjection,
pronoun, contraction or filler word is never a subject's name
(`lexicon.FILLER`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from substrate.meaning.arabic import clitic_noun, first_person_verb, has_arabic, named_lead
from substrate.meaning.arabic_person import said_by_me
from substrate.meaning.events import FAMILY_OF_HEAD
from substrate.meaning.lexicon import FILLER, RELATIONS, RELATIONS_AR, TOPIC_WORDS, WEEKDAYS
from substrate.meaning.parser import (
    name_acts,
    name_owns,
    named_by_relation,
    opens_with_verb,
    says_no_subject,
)
from substrate.meaning.sentences import sentence_ends
from substrate.meaning.slots import read_slot
from substrate.safety import linear, runs

Kind = Literal["me", "named", "other"]
_AR = "\u0600-\u06ff"
_CUE = linear(r"^(?P<name>[A-Z][\w'’-]{1,30}(?: [A-Z][\w'’-]{1,30})?):\s+(?P<rest>\S.*)$")
_CUE_AR = linear(rf"^(?P<name>[{_AR}]{{2,20}}(?: [{_AR}]{{2,20}})?):\s+(?P<rest>\S.*)$")
_FIRST = linear(
    r"(?i)(?:^|[\s,;(\"“])(?:i|i'm|i’m|im|i've|i’ve|i'd|i’d|i'll|i’ll|my|me|mine|myself|we|"
    r"we're|we’re|we've|we’ve|our|us)(?:[\s,.;:!?)\"”]|$)"
)
_FIRST_AR = linear(
    r"(?:^|\s)(?:أنا|انا|نحن|عندي|لدي|لديّ|اسمي|عمري|أعمل|اعمل|أسكن|اسكن|أعيش|اعيش|انتقلت|"
    r"انتقلنا|أفضل|أفضّل|افضل|أحب|احب|صرت|أصبحت|اصبحت|لم أعد|لم اعد|زوجتي|زوجي|أختي|أخي|"
    r"أمي|أبي|ابني|ابنتي|صديقي|صديقتي|رقمي|بريدي|وظيفتي|تركت|بدأت|اشتريت|تبنيت|أدرس|ادرس|"
    r"ذهبت|زرت|سافرت|أشعر|أريد|أخطط|خططي|بيتي|منزلي|شقتي|عملي|مديري|قطتي|كلبي|أتعلم|اتعلم|"
    r"أمارس|امارس|أتدرب|اتدرب|ألعب|العب|أقرأ|اقرأ|أكتب|اكتب|بعت|تعلمت|تخرجت|تزوجت)"
    r"(?:\s|$|[.،؟!])"
)
_RELATIVE = linear(
    r"^(?i:(?:and |also |so |btw,? |oh,? )?(?:my|our) (?:(?:older|younger|little|big|eldest|"
    r"youngest|best|new|twin|old) )?)(?P<rel>[a-z]+),? (?P<name>[A-Z][\w'’-]{1,30})"
    r"(?P<tail>(?:,| |$).*)$"
)
# "… and I", "… & me": the person is a subject beside the one named.
_WITH_ME = linear(r"^,? (?:and|&) (?i:i|me|we)\b")
# Families whose named members are the person's things, not people.
_THINGS = frozenset({"pet", "vehicle", "home", "membership", "course", "work"})
_MY = linear(r"(?:^|\s)(?i:my|our) ")
_RELATIVE_AR = linear(rf"^(?:و)?(?P<rel>[{_AR}]{{2,8}})\s+(?P<name>[{_AR}]{{2,20}})(?P<tail>\s.*)$")
_NAME_LEAD = linear(
    r"^(?P<name>[A-Z][\w'’-]{1,30}(?: (?:[A-Z][\w'’-]{1,30}|of|de|van|von))*)(?P<tail>\W.*)$"
)
_THE_USER = linear(r"^(?i:the user|user)(?P<own>'s|’s)?(?P<tail>(?: |,).*)$")
_WORD = runs(r"[^\W\d_][\w'’-]*")
# Third-person verb forms a subject's own statement turns into the first person.
_VERBS = {
    "is": "am",
    "was": "was",
    "has": "have",
    "does": "do",
    "lives": "live",
    "works": "work",
    "prefers": "prefer",
    "likes": "like",
    "loves": "love",
    "uses": "use",
    "owns": "own",
    "studies": "study",
    "drinks": "drink",
    "eats": "eat",
    "plays": "play",
    "goes": "go",
    "wants": "want",
    "needs": "need",
    "hates": "hate",
    "enjoys": "enjoy",
    "teaches": "teach",
    "runs": "run",
    "drives": "drive",
}
_VERBS_AR = {"تعمل": "أعمل", "يعمل": "أعمل", "تسكن": "أسكن", "يسكن": "أسكن", "تعيش": "أعيش",
             "يعيش": "أعيش", "تدرس": "أدرس", "يدرس": "أدرس", "انتقلت": "انتقلت", "انتقل": "انتقلت",
             "تفضل": "أفضل", "يفضل": "أفضل"}  # fmt: skip
# "زوجتي اسمها ليلى" names the wife, it says nothing about her.
_NOT_NAMES_AR = frozenset("اسمها اسمه هي هو هما كانت كان تعمل يعمل تسكن يسكن".split())
_VERBISH = frozenset(
    """is was has had went got made said told took gave saw came left began became did
    can will would should could may might must just also never always still recently
    finally joined moved started bought adopted met ran won lost wrote read""".split()
)
# Words that open a sentence capitalised without naming anything.
_NOT_NAMES = frozenset(
    """the a an this that these those there here it its he she they his her their we our
    today yesterday tomorrow tonight recently lately also then after before last next
    when while during since every each some many most one two three first finally later
    earlier now soon always never often usually maybe perhaps please remember remind note
    notes todo reminder update idea ideas meeting call lunch dinner breakfast home work
    life job office school college uni family weekend morning evening night coffee tea
    everything nothing something everyone someone money rent traffic weather parking
    training practice class classes dinner holiday vacation trip travel sleep health
    food music football running yoga gym""".split()
)
_LEAD_FILLER = FILLER - {"i", "i'm", "i've", "i'd", "i'll", "im", "my", "me", "we", "we're",
                          "we've", "we'd", "we'll", "our", "us", "mine", "ours"} | frozenset(
    "and but also just today yesterday recently lately finally guess what".split()
)  # fmt: skip
# After "'s": "she's moved" is "she has moved", "she's tired" is "she is".
_PARTICIPLES = frozenset(
    """been gone got gotten taken done made had left started begun become bought sold found
    given seen met won lost run split broken chosen driven flown grown known shown
    written""".split()
)
# Words between a name and its verb: "Iona no longer lives", "Sam still works".
_ADVERBS = frozenset("no longer never still now just recently finally also already".split())
# After "Iona's birthday": the verb that shows the "'s" was a possessive.
_POSSESSED_VERBS = frozenset(
    "is was are were has had will lives works expires starts ends falls comes".split()
)
# A request to the assistant: a question put to "you", or a plea.
_REQUEST = linear(r"(?i)^(?:(?:can|could|would|will) you\b.*\?|please\b.*[.!?])$")
# "he" or "she" opening a later clause: after a comma, a dash or a conjunction.
_PRONOUN = linear(r"(?i)(?:[,;:—–-]|\b(?:and|so|but|now|then))\s+(she|he)(?:'s\b|’s\b|\s)")
# Verbs that open a note whose "I" was left out ("Moved to Leeds in June").
_ELIDED = frozenset(
    """moved relocated switched started joined left quit got bought adopted changed prefer
    love hate became upgraded finished graduated""".split()
)
_CUE_LABELS = frozenset(
    "note notes todo reminder update idea ideas tip fyi ps re fwd question answer".split()
)


@dataclass(frozen=True)
class Subject:
    """`kind`: the user (`me`), a named person or thing (`named`), or none
    known (`other`). `name`: as written; `relation`: a relative's relation to the
    user ("sister"). `own`: the fact in the subject's first person."""

    kind: Kind
    own: str
    name: str | None = None
    relation: str | None = None
    cue: bool = False  # a cue line: the speaker said it


def read_subject(text: str) -> Subject:
    """Who `text` is about (see the module doc)."""
    head = _past_the_request(" ".join(text.split("\n", 1)[0].split()))
    subject = _subject(head)
    if subject.kind == "named" and not subject.cue:
        subject = replace(subject, own=_same_person(subject.own))
    if subject.kind == "me" or subject.cue or subject.relation:
        return subject
    # A fact the slot patterns read as the user's own as written ("New phone
    # number: …", "Big news: I moved to Porto", "Oscar and I split up; I'm
    # seeing Chloe") is the user's, whatever word it opens with.
    if subject.kind == "named" and (
        _clearly_acts(head, str(subject.name)) or named_lead(head) == subject.name
    ):
        return subject  # "Karim's started at the Western General": Karim's
    slot = read_slot(head).slot
    whose = subject.name is not None and any(f"{subject.name}{s}" in head for s in ("'s", "’s"))
    if slot is None or (slot in ("email", "phone") and whose):
        return subject  # "Tom's number is …": Tom's
    return Subject("me", head)


def _the_user(head: str) -> Subject | None:
    """A fact told of "the user" (what curation and capture write) is the user's,
    read in the first person: "The user moved to Porto" -> "I moved to Porto"."""
    match = _THE_USER.match(head)
    if match is None:
        return None
    tail = match.group("tail")
    if match.group("own"):
        return Subject("me", "My" + tail)
    return Subject("me", _first_person(tail))


def _subject(head: str) -> Subject:
    user = _the_user(head)
    if user is not None:
        return user
    labelled = _family_label(head)
    if labelled is not None:
        return Subject("me", labelled)
    cue = _CUE.match(head) or _CUE_AR.match(head)
    if cue is not None and _is_name(cue.group("name")) and not _is_label(cue.group("name")):
        return Subject("named", cue.group("rest"), cue.group("name"), cue=True)
    relative = _relative(head) or _by_relation(head)
    if relative is not None:
        return relative
    opening = _opening(head)
    if _FIRST.search(opening) or _FIRST_AR.search(opening) or opening.lower() in _ELIDED:
        return Subject("me", head)
    if _speaks_arabic(head):
        return Subject("me", head)
    named = named_lead(head) if has_arabic(head) else None
    if named is not None:  # "منة اتنقلت دبي": Mena's, said of her
        return Subject("named", head, named)
    lead = _NAME_LEAD.match(head)
    if lead is not None:
        name, tail = lead.group("name"), lead.group("tail")
        for own in ("'s", "’s"):  # "Iona's moved", "Iona's birthday": the name, then "'s"
            if name.endswith(own) and len(name) > len(own) + 1:
                name, tail = name[: -len(own)], own + tail
        acts = _acts(tail) or name_acts(head)
        if _is_name(name) and acts and not opens_with_verb(head):
            owned = tail[:2] in ("'s", "’s") and _plain(tail[2:]) and name_owns(head)
            own = "My" + tail[2:] if owned else _first_person(tail)  # "Kai's placement ended"
            return Subject("named", own, name)
    if _FIRST.search(head) or _FIRST_AR.search(head) or _weekly(opening):
        return Subject("me", head)
    if says_no_subject(head) and not _memo(head):
        return Subject("me", head)  # the person left themself out, as a diary does
    if has_arabic(head) and said_by_me(head):
        return Subject("me", head)  # "كل يوم بروح عالشغل", "ممرضة في مستشفى …"
    return Subject("other", head)


def _weekly(opening: str) -> bool:
    """A note that opens with a day of the week and names no one before it
    ("Wednesday nights = bowling league", "Tuesdays it's pottery") is the
    person's routine, as a diary's line is."""
    word = opening.strip(",.!:;-").lower()
    return word in WEEKDAYS or word.removesuffix("s") in WEEKDAYS


def _speaks_arabic(head: str) -> bool:
    """An Arabic statement that opens with a verb the analyser reads in the first
    person ("ربيت صقراً", "بشتغل في …"), unless a relative stands after it as
    its subject (verb first: "انتقلت أختي إلى دبي" is the sister's)."""
    words = [w.strip(".،,!؟?:") for w in head.split()[:2]]
    if not words or not has_arabic(words[0]) or not first_person_verb(words[0]):
        return False
    return len(words) < 2 or words[1] not in RELATIONS_AR


def _opening(head: str) -> str:
    """The first word after any greeting or filler: where a first-person subject
    stands when the fact is the user's ("Yeah so I moved…")."""
    words = head.split(" ")
    at = 0
    while at < len(words) - 1 and words[at].strip(",.!:;-").lower() in _LEAD_FILLER:
        at += 1
    return " ".join(words[at : at + 1])


def _relative(head: str) -> Subject | None:
    match = _RELATIVE.match(head)
    if match is not None and match.group("rel").lower() in RELATIONS:
        name = match.group("name")
        if _WITH_ME.match(match.group("tail")):
            return Subject("me", head)  # "My partner Jordan and I moved in": both, the person too
        if _is_name(name):
            return Subject(
                "named", _first_person(match.group("tail")), name, match.group("rel").lower()
            )
    match = _RELATIVE_AR.match(head)
    if (
        match is not None
        and match.group("rel") in RELATIONS_AR
        and match.group("name") not in _NOT_NAMES_AR
        and not clitic_noun(match.group("name"))  # "ابني بمدرسة …": where, not who
    ):
        tail = match.group("tail").split()
        if tail and tail[0] in _VERBS_AR:
            tail[0] = _VERBS_AR[tail[0]]
        relation = RELATIONS_AR[match.group("rel")]
        return Subject("named", "أنا " + " ".join(tail), match.group("name"), relation)
    return None


def _by_relation(head: str) -> Subject | None:
    """Someone the person names beside what they are to them, read from the
    parse wherever the sentence puts them ("Heads up, my buddy Darnell is
    moving …", "save this — my flatmate Georgie's new number is …"), whatever
    the relation's word; not a pet, a vehicle or a home, which are the
    person's own things with names (their families read those)."""
    found = named_by_relation(head)
    mine = _MY.search(head)
    if found is None and mine is not None and mine.start() > 0:
        found = named_by_relation(head[mine.start() :].lstrip())  # "btw my flatmate …"
    if found is None or FAMILY_OF_HEAD.get(found[1]) in _THINGS:
        return None
    name, relation = found
    tail = head[head.find(name) + len(name) :]
    return Subject("named", _first_person(tail), name, relation)


def _acts(tail: str) -> bool:
    """The word after a capitalised opener is a verb (or "and" another name), so
    the opener is someone doing something: "Caroline went", "Sam's moving",
    "Melanie and Caroline …"; not "Back when", "Big news:", "New phone number"."""
    if tail.startswith(("'s ", "’s ")):
        return True
    words = tail.strip().split(" ")
    while len(words) > 1 and words[0].lower() in _ADVERBS:
        words = words[1:]  # "Iona no longer lives …": the verb after the adverbs
    words = [" ".join(words[:1]), " ".join(words[1:2])] if words else []
    if not words or not words[0]:
        return False
    word = words[0].lower().strip(",;:")
    if word == "and":
        return len(words) > 1 and words[1][:1].isupper()
    return word in _VERBISH or word in _VERBS or (len(word) > 3 and word.endswith(("ed", "s")))


def _clearly_acts(head: str, name: str) -> bool:
    """The name is followed by "'s" or a verb no noun is ("went", "lives",
    "moved"), not by a word that only ends like one ("Big news: …")."""
    tail = head[len(name) :] if head.startswith(name) else ""
    if tail.startswith(("'s ", "’s ")):
        return True
    words = tail.strip().split(" ", 1)
    word = words[0].lower().strip(",;:") if words and words[0] else ""
    return word in _VERBISH or word in _VERBS or (len(word) > 3 and word.endswith("ed"))


def _past_the_request(head: str) -> str:
    """A statement that opens by asking the assistant for something ("Can you
    draft an email signature for my new assistant? Gemma Royce, …") is about
    what follows the request: the request itself states nothing of anyone."""
    ends = sentence_ends(head)
    if not ends or not _REQUEST.match(head[: ends[0]].strip()):
        return head
    rest = head[ends[0] :].strip()
    return rest or head


def _plain(rest: str) -> bool:
    """The word after a name's "'s" is no participle or gerund, so the "'s" may
    own it ("Kai's placement"), where "Iona's living in …" is "is living"
    however the parser hangs it."""
    after = rest.strip().split(" ", 1)[0].lower()
    return bool(after) and after not in _PARTICIPLES and not after.endswith(("ed", "ing"))


def _same_person(own: str) -> str:
    """A later clause whose subject is "he" or "she" goes on about the one named
    ("Mum finally downsized, she's in a bungalow in Portrush now"): told in the
    first person too, so the slot patterns read it as theirs."""
    for _ in range(3):
        match = _PRONOUN.search(own)
        if match is None:
            break
        rest = own[match.end(1) :]
        own = own[: match.start(1)] + _first_person(rest)
    return own


def _first_person(tail: str) -> str:
    """The rest of a sentence whose subject was named, told as "I …"."""
    words = tail.strip().lstrip(",").split(" ", 1)
    if not words or not words[0]:
        return "I"
    lead: list[str] = []
    while len(words) > 1 and words[0].lower() in _ADVERBS:
        lead.append(words[0])  # "no longer lives" -> "no longer live"
        words = words[1].split(" ", 1)
    if lead:
        verb = words[0]
        changed = _VERBS.get(verb.lower(), verb)
        return " ".join(["I", *lead, changed, *words[1:]])
    verb = words[0]
    lower = verb.lower()
    if lower.endswith(("'s", "’s")) and len(lower) == 2:
        rest = words[1].split(" ") if len(words) > 1 else []
        after = rest[0].lower() if rest else ""
        then = {w.lower().strip(",") for w in rest[1:4]}
        if _plain(after) and then & (
            _POSSESSED_VERBS | set(_VERBS)
        ):  # "Iona's birthday is …": hers
            return " ".join(["My", *rest])
        verb = "have" if after in _PARTICIPLES or after.endswith("ed") else "am"
    elif lower in _VERBS:
        verb = _VERBS[lower]
    return " ".join(["I", verb, *words[1:]])


def _is_name(name: str) -> bool:
    words = _WORD.findall(name)
    if not words:
        return False
    first = words[0].lower().replace("’", "'")
    if _weekly(first):
        return False  # "Wednesday nights = …", "Sundays I …": a time, not a person
    return first not in FILLER and first not in _NOT_NAMES and not first.endswith("ing")


# A label's word for a kind the families name otherwise ("Work: …" is one's job).
_LABEL_KINDS = {"work": "job"}


def _family_label(head: str) -> str | None:
    """A note labelled with a kind of thing a person has one of ("day job:
    backend dev at Zentrix Labs", "Car: a Honda Jazz", "Gym - PureGym"): the
    person's, read as "My day job is …", "My car is …"; None for any other
    note."""
    for mark in (":", " - ", " – ", " — "):
        label, said, rest = head.partition(mark)
        words = label.lower().split()
        if said and rest.strip() and 0 < len(words) <= 3 and all(w.isalpha() for w in words):
            kind = _LABEL_KINDS.get(words[-1], words[-1])
            if FAMILY_OF_HEAD.get(kind) is not None:
                return f"My {' '.join([*words[:-1], kind])} is {rest.strip()}"
            return None
    return None


def _memo(head: str) -> bool:
    """A labelled memo ("Note: buy milk", "Todo: renew the passport"): a thing to
    do or keep, not a line of the person's diary."""
    label = head.split(":", 1)[0] if ":" in head else ""
    return _is_label(label.strip())


def _is_label(name: str) -> bool:
    return name.lower() in _CUE_LABELS


def topic_of(text: str) -> str | None:
    """The topic whose words the fact uses most (ties: the first in `TOPIC_WORDS`)."""
    return topic_score(text)[0]


def topic_score(text: str) -> tuple[str | None, int]:
    """(the topic whose words the fact uses most, how many of them it uses)."""
    words = {w.lower().replace("’", "'") for w in _WORD.findall(text)}
    best, score = None, 0
    for topic, vocabulary in TOPIC_WORDS.items():
        found = len(words & vocabulary)
        if found > score:
            best, score = topic, found
    return best, score
