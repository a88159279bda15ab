"""Whose words a remembered text is: the person's own, or words they pass on.

`voices` cuts a text into the person's own spans and the ones they only pass
on (quoted, forwarded, pasted, given to transform, reported, hypothetical).
A remembered text is read as a whole: when what is left of the person's own
words is only the frame around the passed-on part ("Proofread this please:",
"My boss wrote:", "Karim texted me", "Can you translate this for my
sister:"), the text is `passed_on`, never the person's fact; otherwise it is
`own`, and only its own sentences are read for what it states (`own`).
The speaker is named when the frame or the reported sentence says who
("Karim texted me", "my boss wrote", "for my sister", "an email from Tom",
"Karim's message", "قالت أختي", "كتب لي كريم"), so the words can be kept as a
note on that person's page, marked as theirs. English and Arabic; every
pattern reads one bounded sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from substrate.meaning.frames import hands_on
from substrate.meaning.lexicon import FILLER, RELATIONS, RELATIONS_AR
from substrate.meaning.sentences import sentence_pieces
from substrate.meaning.voices import HYPOTHETICAL, REPORTED, Span, voices
from substrate.safety import IGNORECASE, linear, short

Voice = Literal["own", "passed_on"]
OWN: Voice = "own"
PASSED_ON: Voice = "passed_on"
READ_CHARS = 400  # what a pattern reads of one sentence
_HINT = linear(r"\[\[[^\]]*\]\]")
# A cue line's speaker label ("Caroline: …", "كريم: …"): kept on the own words.
_CUE = linear(r"^(?:[A-Z][\w'’-]{1,30}(?: [A-Z][\w'’-]{1,30})?|[\x{0600}-\x{06ff}]{2,20}):\s+")
_NAME = r"[A-Z][\w'’-]{1,30}(?: [A-Z][\w'’-]{1,30})?"
_REL = r"(?:[Mm]y|[Oo]ur) (?:(?:old|new|ex|former|best|older|younger|little|big|twin|late) )?[a-z-]{2,20}"
_SAYING = (
    r"(?:said|says|wrote|writes|texted|texts|emailed|e-mailed|messaged|sent|told|tells|posted|"
    r"replied|tweeted|forwarded|shared|asked|answered|mentioned|announced|explained|insisted|"
    r"claims|claimed|added|whatsapped|dm'd|dmed|pinged|put it|keeps saying|kept saying|"
    r"joked|jokes|swears by|swore by|reckons)"
)
_SPEAKER_EN = [
    # "Karim texted me", "my boss wrote:", "Karim just said"
    short(
        rf"(?:^|[\s,;(])(?P<who>{_NAME}|{_REL})(?: (?:just|also|then|has|had|once|already))? "
        rf"{_SAYING}\b",
        READ_CHARS,
    ),
    # "according to Karim", "as my sister put it"
    short(rf"\b(?:according to|as) (?P<who>{_NAME}|{_REL})\b", READ_CHARS),
    # "Karim's email", "my sister's message"
    short(
        rf"(?:^|[\s,;(])(?P<who>{_NAME}|{_REL})(?:'s|’s) (?:e-?mail|message|text|note|letter|post|"
        r"reply|answer|words|update|bio|draft|essay|cover letter|speech|toast|vows)\b",
        READ_CHARS,
    ),
    # "for my sister", "from Tom", "from my landlord"
    short(rf"\b(?:for|from|by) (?P<who>{_NAME}|{_REL})\b", READ_CHARS),
]
_SPEAKER_AR = [
    short(
        r"(?:^|\s)(?:قال|قالت|كتب|كتبت|أرسل|أرسلت|ارسل|ارسلت|أخبرني|أخبرتني|اخبرني|اخبرتني|"
        r"راسلني|راسلتني|ذكر|ذكرت|يقول|تقول)(?: لي| لنا)? (?P<who>[\u0600-\u06ff]{2,20})",
        READ_CHARS,
    ),
    short(r"(?:^|\s)(?:من|ل|لـ)\s?(?P<who>[\u0600-\u06ff]{2,20})(?:\s|$|[:.،])", READ_CHARS),
]
# What frames words passed on rather than stating anything: a request, a
# colon that opens the passed-on text, a verb of saying that ends the sentence.
_REQUEST = short(
    r"^(?:(?:hi|hey|hello|ok|okay|so|and)[,!]? )?(?:can|could|would|will) (?:you|u)\b"
    r"|^(?:please|pls|plz|kindly|help me|i need you to|i want you to|i'd like you to)\b"
    r"|^(?:هل )?(?:ممكن|يمكنك|هل يمكنك|أرجو|ارجو|من فضلك|لو سمحت)",
    READ_CHARS,
    IGNORECASE,
)
_SAYS_AT_END = short(
    rf"\b{_SAYING}(?: (?:me|us|to me|to us|this|that|it))*[\s,:\-–—]*$", READ_CHARS
)
# Labels that open text to transform or a message's header, never a speaker's line.
_NOT_CUES = frozenset(
    """translate translation summarise summarize summary proofread rewrite fix edit reply
    respond answer review check correct polish shorten paraphrase rephrase reword format
    convert tidy clean improve draft quote forwarded fwd fw from to subject re cc date sent
    original message email text""".split()
)
_ONLY_FRAME_WORDS = 2  # a sentence this short beside passed-on words is their frame
_NOT_SPEAKERS = frozenset(
    """i me my we us our you your he she they it this that there here who what the a an
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december today yesterday tomorrow""".split()
)
_AR_NOT_SPEAKERS = frozenset("هذا هذه ذلك التالي الآتي النص الرسالة فضلك سمحت".split())


@dataclass(frozen=True)
class Attribution:
    """`voice`: the person's own words (`own`) or words they pass on
    (`passed_on`). `own`: the person's own sentences, the frame around passed-on
    words taken out ('' when there are none). `passed`: the words passed on.
    `why`: what the passed-on words are (quoted, forwarded, pasted, to
    transform, code, reported speech, hypothetical). `speaker`: whose words, as
    written ("Karim", "my sister"), when the text says."""

    voice: Voice
    own: str
    passed: str = ""
    why: str | None = None
    speaker: str | None = None

    @property
    def relation(self) -> str | None:
        """The speaker's relation to the person ("sister"), when named by it."""
        if self.speaker is None:
            return None
        if self.speaker in RELATIONS_AR:
            return RELATIONS_AR[self.speaker]
        words = self.speaker.split()
        if len(words) >= 2 and words[0].lower() in ("my", "our"):
            return words[-1].lower()
        return None

    def as_json(self) -> dict[str, Any]:
        return {
            "voice": self.voice,
            "speaker": self.speaker,
            "why": self.why,
            "own": self.own,
            "passed_on": self.passed,
        }


@lru_cache(maxsize=4096)
def attribute(text: str) -> Attribution:
    """Whose words `text` is (see the module doc)."""
    clean = " ".join(_HINT.sub(" ", text).split(" ")).strip()
    cue = _CUE.match(clean)
    label = clean[: cue.end()].strip().rstrip(":").lower() if cue is not None else ""
    if cue is not None and cue.end() < len(clean) and label not in _NOT_CUES:  # "Caroline: …"
        said = attribute(clean[cue.end() :])
        own = f"{clean[: cue.end()].strip()} {said.own}" if said.own else ""
        return Attribution(said.voice, own, said.passed, said.why, said.speaker)
    spans = voices(clean)
    passed = [s for s in spans if s.why is not None and s.text.strip()]
    if not passed:
        return Attribution(OWN, clean)
    own_spans = [s for s in spans if s.why is None and s.text.strip()]
    stated = [p for s in own_spans for p in _sentences(s) if not _frame(p)]
    frame = " ".join(s.text.strip() for s in own_spans)
    words = " ".join(s.text.strip() for s in passed)
    why = passed[0].why
    speaker = _speaker(frame) or _reported_speaker(passed)
    if why == HYPOTHETICAL:
        speaker = None  # a supposition is nobody's report
    if stated:
        return Attribution(OWN, " ".join(stated), words, why, speaker)
    return Attribution(PASSED_ON, "", words, why, speaker)


def own_words(text: str) -> str:
    """What of `text` goes on a page as the person's fact: the whole text, or,
    for one that also passes someone's words on beside the person's own
    ("Tom texted 'we're in Swindon' — funny timing, we moved on Saturday!"),
    the person's own sentences alone (the archive keeps the text as said), so
    no page holds the passed-on words as the person's."""
    said = attribute(text)
    if said.voice != OWN or not said.passed or not said.own.strip():
        return text
    own = said.own.strip(" \t—–-,;:")
    if _continues(own):
        return text  # "Kiwi, our budgie, says 'hello gorgeous' to everyone": one sentence
    return own[:1].upper() + own[1:] if own else text


def _continues(own: str) -> bool:
    """The person's words left beside the quote go on the sentence the quote
    stands in ("… says 'hello gorgeous' to everyone who walks in"), not a
    sentence of their own: they open in lower case with a preposition."""
    first = own.split(" ", 1)[0] if own else ""
    return first.islower() and first in _CONTINUING


# Words that carry a sentence on past a quote inside it ("says 'X' to everyone").
_CONTINUING = frozenset("to at in on for from with every each whenever when".split())


def _sentences(span: Span) -> list[str]:
    return [" ".join(p.split()) for _, p in sentence_pieces(span.text) if p.strip()]


def _frame(sentence: str) -> bool:
    """A sentence that only frames words passed on (or says nothing)."""
    head = sentence.strip(" \"“”'‘’«»()-–—")[:READ_CHARS]
    words = head.split()
    if len(words) <= _ONLY_FRAME_WORDS or head.endswith((":", "：")):
        return True
    if head.endswith(("?", "؟")) or _REQUEST.search(head):
        return True
    return bool(_SAYS_AT_END.search(head.rstrip(" .,!"))) or hands_on(head)


def _speaker(frame: str) -> str | None:
    """Who the frame says the passed-on words are from."""
    for pattern in _SPEAKER_EN:
        for match in _finditer(pattern, frame):
            who = _named(match.group("who"))
            if who is not None:
                return who
    for pattern in _SPEAKER_AR:
        for match in _finditer(pattern, frame):
            who = str(match.group("who"))
            if who in RELATIONS_AR or (who not in _AR_NOT_SPEAKERS and len(who) > 2):
                return who
    return None


def _finditer(pattern: Any, text: str) -> list[Any]:
    out = []
    at = 0
    head = text[:READ_CHARS]
    while at <= len(head):
        match = pattern.search(head[at:])
        if match is None:
            break
        out.append(match)
        at += max(match.end(), 1)
    return out


def _reported_speaker(passed: list[Span]) -> str | None:
    """The speaker a reported sentence opens with ("Karim said he …")."""
    for span in passed:
        if span.why == REPORTED:
            return _speaker(span.text.strip())
    return None


def _named(who: str) -> str | None:
    """A speaker as written, or None for a pronoun, a day or a filler word."""
    words = who.split()
    first = words[0].lower().replace("’", "'")
    if first in ("my", "our"):
        relation = words[-1].lower()
        return (
            f"{first} {' '.join(words[1:])}" if relation in RELATIONS or len(words) == 2 else None
        )
    if first == "from" and len(words) > 1:  # "From Sam's email —"
        return _named(" ".join(words[1:]))
    if first in _NOT_SPEAKERS or first in FILLER:
        return None
    return who
