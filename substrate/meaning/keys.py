"""What a statement says without its filler: the key repeats are counted by.

"Prefer dark mode, honestly." and "I prefer dark mode now." state one
preference, and "Prefer light mode now." a new value of it: hedges ("I
think", "kind of", "to be honest"), intensifiers ("really", "definitely") and
words of time that only say "still true" ("now", "these days", "at the
moment") carry nothing a repeat must match. English and Arabic; the words
are dropped only as whole words, so a value that holds them as part of a
word ("snow", "known") is untouched.
"""

from __future__ import annotations

from substrate.safety import linear

_FILLER = linear(
    r"(?i)(?:^|[\s,;(])(?:honestly|to be honest|tbh|frankly|if i'?m honest|i think|i guess|"
    r"i suppose|i'd say|kind of|kinda|sort of|sorta|basically|literally|personally|to be fair|"
    r"really|actually|definitely|totally|absolutely|just|still|anyway|anyways|lol|haha|"
    r"now|right now|for now|these days|nowadays|at the moment|currently|lately|"
    r"الآن|حاليا|حالياً|هذه الأيام|بصراحة|فعلا|فعلاً|حقا|حقاً)(?:[\s,;.!?)]|$)"
)
_PUNCT = " \t.,;:!?-–—…"


def without_filler(text: str) -> str:
    """`text` without hedges, intensifiers and still-true time words, spaces and
    the punctuation they leave behind tidied."""
    out = " ".join(text.split())
    for _ in range(8):  # adjacent filler words share the space between them
        cleaned = _FILLER.sub(" ", out)
        if cleaned == out:
            break
        out = cleaned
    out = " ".join(out.split())
    for mark in ",;:.!?":
        out = out.replace(f" {mark}", mark)
    out = out.replace(",.", ".").replace(", .", ".")
    return out.strip(_PUNCT.replace(".", "")).rstrip(",;: ")


def key_of(text: str) -> str:
    """The key a statement is counted by: its words without filler, case-folded,
    without the stop at its end."""
    return " ".join(without_filler(text).casefold().split()).strip(_PUNCT)
