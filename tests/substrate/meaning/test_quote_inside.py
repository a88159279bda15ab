"""A quote inside the person's own sentence stays in it: "Kiwi, our budgie,
says 'hello gorgeous' to everyone who walks in" goes on a page whole, where the
words after the quote carry the sentence on (in lower case, with a
preposition); a quote beside a sentence of the person's own ("… and I start
at Orbital on Monday") still leaves only that sentence. Names are made up."""

from __future__ import annotations

import itertools

import pytest

from substrate.meaning.attribution import own_words
from tests.made_up import seeded

SAYERS = ["{n}, our budgie,", "Our parrot {n}", "{n} the mynah bird"]
QUOTES = ["hello gorgeous", "who's a clever boy", "night night"]
AFTER = [
    "to everyone who walks in",
    "at the front door",
    "every single morning",
    "whenever the kettle boils",
]
BESIDE = ["and I start at Orbital on Monday", "but we moved to Leith on Saturday"]


@pytest.mark.parametrize(
    ("sayer", "quote", "after"), list(itertools.product(SAYERS, QUOTES, AFTER))
)
def test_a_quote_inside_the_persons_sentence_stays_in_it(
    sayer: str, quote: str, after: str
) -> None:
    said = f"{sayer.format(n=seeded(sayer + quote))} says '{quote}' {after}"
    assert own_words(said) == said


@pytest.mark.parametrize(("quote", "beside"), list(itertools.product(QUOTES, BESIDE)))
def test_a_quote_beside_the_persons_own_sentence_is_left_off(quote: str, beside: str) -> None:
    said = f"{seeded(quote)} texted '{quote}' {beside}"
    kept = own_words(said)
    assert quote not in kept and kept.lower().startswith(beside.split()[0]), kept
