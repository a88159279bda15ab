"""Made-up names for generated cases: words no rule, list or pipeline can know,
the same every run (a fixed seed, never `hash()` of a string)."""

from __future__ import annotations

import random

SYLLABLES = ["ka", "ro", "mi", "tel", "vas", "dor", "qui", "bren", "sol", "mar", "wen", "lo"]


def made_up(rng: random.Random, parts: int = 2) -> str:
    """A capitalised name of `parts` syllables."""
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def seeded(seed: str, parts: int = 2) -> str:
    """The made-up name a string seeds: the same for the same case every run."""
    return made_up(random.Random(seed), parts)


ARABIC_LETTERS = "بتجدرزسشصطعفقكلمنهي"


def arabic_name(rng: random.Random) -> str:
    """A made-up Arabic name of three to five letters, never with the article."""
    return "".join(rng.choice(ARABIC_LETTERS) for _ in range(rng.choice([3, 4, 5])))


def arabic_noun_name(rng: random.Random) -> str:
    """A made-up Arabic name the analyser does not read as a verb, nor as a
    preposition on a word (three random letters often spell a verb: a reader
    takes such a word for a verb too)."""
    from substrate.meaning.arabic import only_verb, verb_class

    while True:
        name = arabic_name(rng)
        if not only_verb(name) and verb_class(name) is None and name[:1] not in "بلوفي":
            return name


def names(n: int, seed: int) -> list[str]:
    """`n` names of two or three syllables drawn from `seed`."""
    rng = random.Random(seed)
    return [made_up(rng, rng.choice([2, 3])) for _ in range(n)]
