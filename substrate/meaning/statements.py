"""What a statement does to what was said before: asserts, ends, or only supposes.

- An **assertion** states a value ("I live in Leith", "it's black coffee every
  morning now").
- A **cessation** says something named ended and names no value in its place
  ("I left Brightwater", "I sold my Fiat", "I've gone off Earl Grey", "Tom
  and I broke up", "I no longer live on Dalry Road", "تركت العمل في أرامكو"):
  `ended` holds what it names, for the decision to find the one fact that
  names it.
- A **hypothetical** states nothing yet: a plan, a wish, a question, a
  condition ("I might move to Berlin", "I'm thinking of leaving", "if I
  quit…", "أفكر في الانتقال").

Read without a model, English and Arabic, on one bounded sentence.
"""

from __future__ import annotations

import itertools
from typing import Literal

from substrate.meaning.arabic import has_arabic, only_verb, verb_lemma
from substrate.meaning.parser import clauses, parsed
from substrate.meaning.sentences import sentence_ends
from substrate.safety import IGNORECASE, linear

Kind = Literal["assertion", "cessation", "hypothetical"]
ASSERTION: Kind = "assertion"
CESSATION: Kind = "cessation"
HYPOTHETICAL: Kind = "hypothetical"
READ_CHARS = 400
_X = r"(?P<old>[\w.&'’ -]{2,40}?)"
_X_END = (
    r"(?:[.,;:!?)]|$| and | but | because | since | after | for | last | this | a few | two | "
    r"three | in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|\d)| yesterday| today| recently| anymore| any more| at the end| now)"
)
_OWNED = r"(?:my |our |the |a |an |that |his |her )?(?:old |former |beloved |trusty )?"
# Ended, named: what a cessation names is the group `old`.
_CESSATION_EN = [
    linear(
        rf"\b(?:i|we)(?:'ve| have)? (?:\w+ ){{0,2}}?(?:left|quit|resigned from|walked out of|"
        rf"walked away from|moved out of|moved away from|handed in my notice at) {_OWNED}{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i|we)(?:'ve| have)? (?:\w+ ){{0,2}}?(?:sold|got rid of|gave away|given away|scrapped|"
        rf"returned|cancell?ed|ended|closed|gave up|given up|dropped|ditched|stopped|quit|"
        rf"gone off|went off|lost interest in|split from|parted ways with|retired from|"
        rf"dropped out of|finished with|broke up with|split up with|separated from|"
        rf"divorced|unsubscribed from|switched away from|moved on from) {_OWNED}{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i|we) (?:no longer|don't|do not|never) (?:\w+ )?{_OWNED}{_X}"
        r"(?: anymore| any more| these days| now)(?:[.,;!]|$| and| but)",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i|we) (?:no longer|don't|do not) (?:\w+ ){{1,2}}?(?:at|in|on|with|for|to) "
        rf"{_OWNED}{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i|we) no longer (?:\w+ )?{_OWNED}{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i'm|i am|we're|we are) (?:no longer|not) (?:with|at|in|a|an|the|on|part of) ?{_X}"
        r"(?: anymore| any more)(?:[.,;!]|$| and| but)",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:i'm|i am|we're|we are) no longer (?:(?:with|at|in|a|an|the|on|part of) )?{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        r"(?:^|[\s,;])(?P<old>[A-Z][\w'’-]{1,30}) and (?:I|i|me) (?:have )?(?:broke up|split up|split|"
        r"separated|got divorced|called it off|went our separate ways|are (?:over|done|through))",
    ),
    linear(
        rf"\b(?:no more|goodbye|bye bye|farewell to|so long) {_OWNED}{_X}{_X_END}",
        IGNORECASE,
    ),
    linear(
        rf"\b(?:my|our) {_X} (?:is|was|has been|got) (?:sold|gone|over|finished|closed|"
        r"cancell?ed|written off|no more)\b",
        IGNORECASE,
    ),
]
_CESSATION_AR = [
    linear(
        r"(?:^|\s)و?(?:تركت|استقلت من|بعت|بعنا|ألغيت|الغيت|توقفت عن|تخليت عن|انفصلت عن|"
        r"تركنا|غادرت|خرجت من|انسحبت من)\s+(?:العمل في\s+|عملي في\s+|شركة\s+)?"
        r"(?P<old>[\w\x{0600}-\x{06ff}]{2,30}(?: [\w\x{0600}-\x{06ff}]{2,30})?)",
    ),
    linear(
        r"(?:^|\s)و?(?:لم أعد|لم اعد|لم نعد|ما عدت|ما عدنا)\s+(?:[\x{0600}-\x{06ff}]+\s+)?"
        r"(?:في\s+|ب|مع\s+|عند\s+)?(?P<old>[\w\x{0600}-\x{06ff}]{2,30})",
    ),
]
# Not so yet: a plan, a wish, a doubt, a question, a condition.
_HYPOTHETICAL_EN = linear(
    r"^(?:(?:so|and|but|well|ok|okay|honestly|actually|maybe|also),? )*"
    r"(?:(?:i|we)(?:'m| am|'re| are)? (?:(?:really|still|seriously|kind of|sort of|also) )?"
    r"(?:might|may|could|would|should|will|shall|'ll|'d|want to|wanna|wish|plan to|"
    r"planning to|plan on|hope to|hoping to|intend to|thinking of|thinking about|"
    r"considering|going to|gonna|about to|looking for|looking at|looking to|"
    r"trying to (?:find|decide|choose)|need to|have to|dream of|dreaming of|can't wait to|"
    r"wonder|wondering|debating|tempted to|leaning towards)"
    r"|maybe (?:i|we)|perhaps (?:i|we)|someday|one day (?:i|we)|if|unless|what if|"
    r"should (?:i|we)|can (?:i|we)|do (?:i|we))\b",
    IGNORECASE,
)
# Whole words: "لولو ماتت" is a cat's death, "هلق" is "now", "قدمت" is "I
# submitted"; none of them is "لو", "هل" or "قد".
_HYPOTHETICAL_AR = linear(
    r"^(?:و)?(?:أفكر|افكر|نفكر|أخطط|اخطط|نخطط|أريد|اريد|نريد|أود|اود|أتمنى|اتمنى|ربما|قد|"
    r"سوف|لو|إذا|اذا|هل|أنوي|انوي|ننوي)(?:\s|$)",
)
# The future written onto the verb: "سأنتقل", "سننتقل" (not "سنة", "سناء").
_FUTURE_PREFIX = ("سأ", "سن", "سي", "ست")


def kind_of(text: str) -> tuple[Kind, tuple[str, ...]]:
    """(what the statement does, what a cessation names as ended)."""
    head = " ".join(text.split())[:READ_CHARS]
    if _asks(head) or _HYPOTHETICAL_EN.search(head):
        return HYPOTHETICAL, ()
    if has_arabic(head) and (_HYPOTHETICAL_AR.search(head) or _future_verb(head)):
        return HYPOTHETICAL, ()
    ended = ended_in(head)
    return (CESSATION, ended) if ended else (ASSERTION, ())


def _asks(head: str) -> bool:
    """The statement is a question: its opening sentence asks ("Moving to Leeds
    next year?", "Should I move? I've been thinking"). A question after a
    statement leaves the statement ("I moved to Leeds. Any tips?", "I eat dairy
    again, so lacto-ovo I suppose?" after "cheese won."); an opener of three
    words or fewer ("Honestly? single and not looking", "Guess what? I got the
    job") asks nothing, and nor does the person's own statement with a question
    tagged on ("I eat dairy again, so lacto-ovo I suppose?")."""
    cuts = [0, *sentence_ends(head), len(head)]
    sentences = [head[a:b].strip() for a, b in itertools.pairwise(cuts)]
    said = [t for t in sentences if len(t.split()) >= _ASKING_WORDS] or sentences[-1:]
    if not said or not said[0].endswith(("?", "؟")):
        return False
    # the person's own statement with a tag ("I eat dairy again, so lacto-ovo I
    # suppose?"); a plan or a doubt said so is read by its own words below
    first = said[0].split()[0].lower().strip(",.")
    if first in _DECLARING:
        return False
    # a diary's past with a question mark, before more ("ported to du and
    # somehow ended up with a different number?? it's …") tells what happened;
    # a question opens with its asking word, stands alone, or tells nothing
    # done ("Moving to Leeds next year? Mum thinks so")
    if first in _ASKING or len(sentences) == 1:
        return True  # "Moved to Leeds?" alone asks
    doc = parsed(said[0])
    opened_past = doc is not None and len(doc) > 0 and doc[0].tag_ in ("VBD", "VBN")
    return not (opened_past or any(c.tense == "past" for c in clauses(said[0])))


# A sentence of three words or fewer before others frames them, it asks nothing ("Honestly?",
# "Guess what?", "My address?").
_ASKING_WORDS = 4
_DECLARING = frozenset("i i'm i've we we're we've my our".split())
_ASKING = frozenset(
    """what when where which who whom whose why how is are am was were do does did have has
    had can could should would will shall may might must any anyone anybody""".split()
)


def _future_verb(head: str) -> bool:
    """The statement opens on a verb with the future written onto it: what is
    left after "س" reads as a verb of its own ("سأنتقل": أنتقل)."""
    first = head.split(maxsplit=1)[0] if head.split() else ""
    first = first[1:] if first.startswith("و") and len(first) > 5 else first
    rest = first[1:]
    if not first.startswith(_FUTURE_PREFIX) or len(rest) < 3:
        return False
    return only_verb(first) or (len(rest) >= 4 and bool(verb_lemma(rest)))


def ended_in(head: str) -> tuple[str, ...]:
    """What the sentence says ended, by name, in the order said."""
    found: list[tuple[int, str]] = []
    patterns = [*_CESSATION_EN, *(_CESSATION_AR if has_arabic(head) else [])]
    for pattern in patterns:
        match = pattern.search(head)
        if match is not None and match.group("old"):
            found.append((head.find(match.group("old")), _folded(match.group("old"))))
    ordered = list(dict.fromkeys(value for _, value in sorted(found) if value))
    # "live on dalry road" and "dalry road": the name, not the verb before it
    return tuple(v for v in ordered if not any(o != v and v.endswith(" " + o) for o in ordered))


_LEADING = ("my ", "our ", "the ", "a ", "an ", "that ", "his ", "her ", "old ", "former ")


def _folded(value: str) -> str:
    """What was ended, folded for matching: lower case, without the article or
    possessive it was said with."""
    out = " ".join(value.lower().replace("’", "'").split()).strip(" .,;:!-")
    changed = True
    while changed:
        changed = False
        for lead in _LEADING:
            if out.startswith(lead):
                out, changed = out[len(lead) :], True
    return out
