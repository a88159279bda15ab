"""A frame that hands on someone else's words, read from the parse: "Forwarding
this from Dad —", "Screenshot from the group chat:", "From Sam's email —",
"Mum's text:".

What follows such a frame is not the person's, however first-person it reads
("Screenshot from the group chat: I'm moving to Lisbon"). The phrase patterns
of `voices` know the frames they list; this reads the frame's shape instead: a
short lead before a colon or a dash, holding a communication (a message, an
email, a screenshot, a forward, a text) that comes from someone other than the
person (a `from` phrase, an owner, or an act of passing on such as
forwarding or pasting), and no clause the person is the subject of ("I moved
house — new address below" is their own).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from substrate.meaning.parser import FIRST_PERSON, parsed, verb_lemma

FRAME_WORDS = 10  # a lead longer than this is a sentence, not a frame
SEPARATORS = (":", " — ", " – ", " -- ", " - ")
# Things that carry someone's words, and acts that hand them on.
COMMUNICATIONS = frozenset(
    """message email e-mail mail text screenshot screengrab chat groupchat voicemail
    voice letter post dm tweet whatsapp thread reply comment card memo newsletter
    announcement caption status story""".split()
)
PASSING_ON = frozenset("forward paste copy screenshot quote share repost".split())


def framed(sentence: str) -> int | None:
    """Where the handed-on words start in `sentence` (just after the frame's
    separator) when it opens with such a frame (see the module doc); None
    otherwise."""
    cut = _separator(sentence)
    if cut is None:
        return None
    lead, after = cut
    return after if hands_on(lead) else None


def _separator(sentence: str) -> tuple[str, int] | None:
    found = [(sentence.find(s), s) for s in SEPARATORS if sentence.find(s) > 0]
    if not found:
        return None
    at, mark = min(found)
    lead = sentence[:at].strip(" \t\"“'(")
    if not lead or len(lead.split()) > FRAME_WORDS or not sentence[at + len(mark) :].strip():
        return None
    return lead, at + len(mark)


@lru_cache(maxsize=1024)
def hands_on(lead: str) -> bool:
    """Whether `lead` (the words before the separator) is such a frame."""
    if len(lead.split()) > FRAME_WORDS:
        return False
    doc = parsed(lead)
    if doc is None:
        return False
    if any(_person_acts(t) for t in doc):
        return False
    for token in doc:
        lemma = verb_lemma(token) if token.pos_ == "VERB" else token.lemma_.lower()
        if token.pos_ == "VERB" and lemma in PASSING_ON:
            return True  # "Forwarding this from Dad", "Copied from the parents' chat"
        spoken = lemma in COMMUNICATIONS and token.pos_ in ("NOUN", "PROPN", "VERB")
        if spoken and (_from_someone(token) or _owned_by_someone(token)):
            return True
    return False


def _person_acts(token: Any) -> bool:
    """A verb whose subject is the person: the lead is their own sentence."""
    if token.pos_ not in ("VERB", "AUX"):
        return False
    return any(
        c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in FIRST_PERSON for c in token.children
    )


def _from_someone(token: Any) -> bool:
    """ "a screenshot from the group chat", "From Sam's email": a `from` phrase
    beside the communication (its child, or its head when it is the object)."""
    preps = [c for c in token.children if c.dep_ == "prep" and c.lower_ == "from"]
    if token.dep_ == "pobj" and token.head.lower_ == "from":
        return _not_mine(token)
    return any(_not_mine(p) for prep in preps for p in prep.children if p.dep_ == "pobj")


def _owned_by_someone(token: Any) -> bool:
    """ "Mum's text", "Sam's email": owned by someone who is not the person
    (however the parser hangs the "'s": "my sister Quika's text" may read the
    name and the text as two appositions)."""
    if any(c.dep_ == "poss" and c.lower_ not in ("my", "our") for c in token.children):
        return True
    before = token.doc[token.i - 1] if token.i > 0 else None
    return before is not None and before.dep_ == "case" and before.head.lower_ not in FIRST_PERSON


def _not_mine(token: Any) -> bool:
    own = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in token.children)
    return token.lower_ not in FIRST_PERSON and not (own and token.lemma_.lower() in COMMUNICATIONS)
