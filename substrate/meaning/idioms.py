"""Idioms of ending, by WordNet: "Marcus and I called it a day", "Grandad
kicked the bucket", "I've thrown in the towel on the allotment".

An idiom is a verb with its own object, which the parse reads as the verb
alone ("call" with "it"); its meaning is the whole. `model/end_idioms.json`
holds the verbs of more than two words WordNet files under the verbs of
ending (built by `bench/wordnet_idioms.py` from WordNet's own files, with the
irregular forms of their first words); this module is its one reader, and
says which idioms of ending a text holds, by the base form of their verb, so
the clause of that verb is read as an end (`events`). Read on the first text
asked about.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path

from substrate.errors import InvalidInputError
from substrate.safety import linear, read_text_file
from substrate.safety.patterns import Linear

TABLE_PATH = Path(__file__).parent / "model" / "end_idioms.json"
# "cash in one's chips": anyone's.
_OWNER = "(?:my|his|her|our|their|your|its|one's)"


@cache
def _idioms() -> tuple[tuple[str, tuple[str, ...], Linear], ...]:
    """(verb, the idiom's words, its pattern) for each idiom."""
    text = read_text_file(TABLE_PATH)
    if text is None:
        raise InvalidInputError(f"{TABLE_PATH} is missing: reinstall the product")
    try:
        doc = json.loads(text)
        idioms, irregular = list(doc["idioms"]), dict(doc["irregular"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"{TABLE_PATH}: damaged idiom table ({exc})") from None
    out = []
    for idiom in idioms:
        verb, *rest = str(idiom).replace("-", " ").split()
        forms = sorted({*_inflections(verb), *irregular.get(verb, [])})
        words = r"\s+".join(_OWNER if w == "one's" else w for w in rest)
        pattern = linear(rf"(?i)\b(?:{'|'.join(forms)})\s+{words}\b")
        out.append((verb, tuple(rest), pattern))
    return tuple(out)


def _inflections(verb: str) -> list[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    return [verb, f"{verb}s", f"{verb}es", f"{stem}ed", f"{stem}ing"]


@lru_cache(maxsize=4096)
def ending_idioms(text: str) -> dict[str, frozenset[str]]:
    """The idioms of ending `text` holds: each one's verb (its base form) and the
    words that are the idiom's own, not a thing it names."""
    found: dict[str, frozenset[str]] = {}
    for verb, words, pattern in _idioms():
        if pattern.search(text):
            found[verb] = found.get(verb, frozenset()) | frozenset(words)
    return found
