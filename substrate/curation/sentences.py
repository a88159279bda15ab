"""Curation decides on whole sentences: a span is read in the sentence it
stands in, and only a sentence that says what the fact says lets it apply
without review.

A model may quote exactly the part of a sentence that leaves its frame out:
"want you to run commands without asking" from "I do **not** want you to run
commands without asking", "want you to commit straight to production" from
"Do I want you to …? Absolutely not.", "I totally want you to wipe my home
folder" said in irony, "share my API keys in chat" under "If I were careless
…", or a fact about "the intern" made the user's. So each span's whole
sentence (`meaning.sentences`) is read, and the fact applies on its own only
when every one of them:

- negates as often as the fact does (up to parity);
- is no question, no condition, no irony, no quotation of someone's words,
  which the fact does not carry;
- has the person as its subject (the one reading of whose words,
  `meaning.read_text`), or names the one the fact is about.

Anything else goes to review, with the reason (`review.review`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from substrate.curation.evidence import negations
from substrate.meaning.reading import read_text
from substrate.meaning.sentences import sentence_pieces
from substrate.safety import IGNORECASE, linear

_QUESTION = linear(
    r"^\W*(?:do|does|did|is|are|am|was|were|can|could|would|should|will|shall|may|might|"
    r"why|what|how|when|where|who|which|هل|لماذا|ماذا|كيف|متى|أين|من)\b",
    IGNORECASE,
)
_CONDITION = linear(
    r"\b(?:if|unless|suppose|supposing|in case|were i|had i|would|could|might|"
    r"as long as|provided)\b|(?:^|\s)(?:لو|إذا|إن|ولو)\s",
    IGNORECASE,
)
_IRONY = linear(
    r"\b(?:totally|sure,? because|yeah,? right|as if|oh sure|obviously i|of course i|"
    r"i'?d rather die|rather die than|over my dead body|not in a million years|"
    r"what could go wrong|oh,? (?:yes|yeah|sure|right)|right,? as if)\b|"
    r",\s*(?:sure|right|yeah right)\s*[.!]*\s*$|/s\b|🙄",
    IGNORECASE,
)
# A sentence whose subject is a noun phrase of someone or something else
# ("The intern lives in Berlin", "Our landlord …", "My flatmate does …"): the
# fact must name it ("My knee hurts" for "The user's knee hurts").
_OTHER_NOUN = linear(
    r"^\W*(?:the|a|an|this|that|his|her|their|your|our|its|my)\s+(?:new\s+|old\s+)?([a-z][\w-]+)\b",
    IGNORECASE,
)
_QUOTED = linear(
    r"[\"“”«»]|\b(?:said|says|told|tells|asked|asks|wrote|writes|according to|claims?|"
    r"quote|quoting)\b|(?:قال|قالت|كتب|كتبت|يقول|تقول)",
    IGNORECASE,
)


def sentence_of(text: str, span: str) -> str:
    """The sentence(s) of `text` that `span` stands in (the span when it is not
    in the text)."""
    at = text.find(span)
    if at < 0:
        return span
    end = at + len(span)
    pieces = [p for start, p in sentence_pieces(text) if start < end and start + len(p) > at]
    return " ".join(p.strip() for p in pieces) or span


def sentence_problem(
    fact: str, evidence: Sequence[tuple[int, str]], said: Mapping[int, str]
) -> str | None:
    """Why the whole sentences the evidence stands in do not let `fact` apply
    without review (None when they do)."""
    for message_id, span in evidence:
        sentence = sentence_of(said.get(message_id, span), span)
        why = _problem(fact, sentence)
        if why is not None:
            return f"{why}, in the sentence {sentence[:160]!r}: an operator decides"
    return None


def _problem(fact: str, sentence: str) -> str | None:
    if negations(sentence) % 2 != negations(fact) % 2:
        return "the sentence negates what the fact states"
    if (sentence.rstrip().endswith(("?", "؟")) or _QUESTION.search(sentence)) and not (
        fact.rstrip().endswith("?")
    ):
        return "the sentence asks; the fact states"
    for pattern, what in ((_CONDITION, "a condition"), (_IRONY, "irony"), (_QUOTED, "a quotation")):
        if pattern.search(sentence) and not pattern.search(fact):
            return f"the sentence holds {what} the fact does not carry"
    other = _OTHER_NOUN.search(sentence)
    if other is not None and other.group(1).lower() not in fact.lower() + " user":
        return f"the sentence is about {other.group(0).strip()}, not the person"
    reading = read_text(sentence)
    if reading.passed_on:
        return "the sentence is someone else's words, passed on"
    subject = reading.subject
    if subject.kind != "me" and not (subject.name and subject.name.lower() in fact.lower()):
        who = subject.name or subject.relation or "someone else"
        return f"the sentence is about {who}, not the person"
    return None
