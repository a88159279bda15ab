"""Whether quoted evidence means what a proposed fact says.

Verbatim spans from the user's own messages are necessary, not sufficient: a
model steered by a tool's output can quote the user exactly and still invert
them ("I do not want you to run commands without asking" → "The user wants
you to run commands without asking"), move a fact from someone the user
named onto the user ("My colleague Bob lives in Berlin" → "User lives in
Berlin"), or assemble a fact out of single words scattered over a message
(`files`, `uploaded`, `shared drive`). So, beside the share of the fact's
content words the spans hold (`extract.substance_problem`), the evidence
must agree with the fact in three more ways:

- **fragments never add up**: a one-word span vouches for nothing, and the
  best single span must carry more than half of what the fact says;
- **polarity**: the spans and the fact negate the same number of times, up
  to parity (not, never, don't, no longer, without; dislike, hate, avoid;
  Arabic لا لم لن ما ليس غير بدون أبدا);
- **subject**: a span whose subject is someone else ("my colleague Bob…",
  "she…", "أخي…") supports only a fact that names that someone.

Each check says why it refused, and the reason is kept in the run's record.
"""

from __future__ import annotations

from substrate.safety import linear, runs

_WORD = runs(r"[\w'’]+")
# Words that negate what follows (English contractions end in n't).
_NEGATIONS = frozenset(
    """not no never none nothing nobody neither nor without cannot nope
    dislike dislikes disliked hate hates hated avoid avoids avoided refuse refuses refused
    لا لم لن ما ليس ليست لست غير بدون أبدا أبداً ولا ولم ولن""".split()
)
# A span whose clause opens with someone else as its subject.
_RELATIONS = (
    "colleague|coworker|co-worker|friend|sister|brother|sibling|wife|husband|partner|"
    "girlfriend|boyfriend|fianc[ée]e?|mom|mum|mother|dad|father|parents?|son|daughter|kids?|"
    "children|child|boss|manager|landlord|landlady|neighbou?r|roommate|flatmate|cousin|aunt|"
    "uncle|grandma|grandmother|grandpa|grandfather|team|client|teacher|doctor|dog|cat"
)
_OTHER_SUBJECT = linear(
    r"(?i)^\W*(?:(?:and|but|so|also|well|oh|btw)\W+)?"
    r"(?:(?:my|our)\s+(?:\w+\s+){0,2}?(" + _RELATIONS + r")\b(?:\s+([A-Z]\w+))?"
    r"|(he|she|they)\b"
    r"|(أخي|أختي|زميلي|زميلتي|صديقي|صديقتي|أمي|أبي|والدي|والدتي|زوجي|زوجتي|ابني|ابنتي|مديري|هو|هي|هم))"
)
MIN_BEST_SPAN_SHARE = 0.5


def meaning_problem(fact: str, spans: list[str], content: list[str]) -> str | None:
    """Why `spans` do not mean what `fact` says (None when they do); `content`
    is the fact's content words (`extract.content_words`)."""
    for check in (_fragment_problem, _polarity_problem, _subject_problem):
        why = check(fact, spans, content)
        if why is not None:
            return why
    return None


def _fragment_problem(fact: str, spans: list[str], content: list[str]) -> str | None:
    if any(len(_WORD.findall(span)) < 2 for span in spans):
        return "a one-word span vouches for nothing: evidence quotes what the user said"
    if not content:
        return None
    best = max(_share(content, span) for span in spans)
    if best <= MIN_BEST_SPAN_SHARE:
        return (
            f"no single span carries the fact (the best holds {best:.0%} of its content "
            "words): fragments do not add up to evidence"
        )
    return None


def _polarity_problem(fact: str, spans: list[str], content: list[str]) -> str | None:
    said = sum(negations(span) for span in spans)
    claimed = negations(fact)
    if said % 2 != claimed % 2:
        return (
            f"the evidence and the fact disagree in polarity ({said} negation(s) in the "
            f"evidence, {claimed} in the fact)"
        )
    return None


def _subject_problem(fact: str, spans: list[str], content: list[str]) -> str | None:
    fact_words = {w.casefold() for w in _WORD.findall(fact)}
    for span in spans:
        found = _OTHER_SUBJECT.search(span)
        if found is None:
            continue
        named = [g for g in found.groups() if g]
        if not any(n.casefold() in fact_words or _stem_in(n, fact_words) for n in named):
            return (
                f"the evidence is about someone else ({' '.join(named)}), "
                "the fact does not say so: whose fact it is disagrees"
            )
    return None


def negations(text: str) -> int:
    """How many times `text` negates: negating words and `n't` ("no longer"
    counts once, by its "no")."""
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(text)]
    return sum(1 for w in words if w in _NEGATIONS or w.endswith("n't"))


def _share(content: list[str], span: str) -> float:
    said = {w.casefold() for w in _WORD.findall(span)}
    held = sum(1 for w in content if any(same_word(w, s) for s in said))
    return held / len(content)


def _stem_in(name: str, words: set[str]) -> bool:
    return any(same_word(name.casefold(), w) for w in words)


def same_word(a: str, b: str) -> bool:
    """ "moved" and "moving", "city" and "cities": the same first four letters (all
    of a three-letter word), and lengths within four of each other."""
    n = min(len(a), len(b), 4)
    return a[:n] == b[:n] and abs(len(a) - len(b)) <= 4
