"""Lasting arrangements read from the parse, generated around the mechanism:
a verb of keeping or holding × who (I, we, a diary's missing subject is not
tried: an arrangement is said with its subject) × a thing of theirs × a
place or holder attached to the verb or to the thing. The near misses are the
same sentences in the past, negated, hedged, wished for, about a pronoun, or
with a time where the place was. Places are made-up names, so no list can
know them; capture then keeps the sentence where its phrase cues did not."""

from __future__ import annotations

import itertools
import random

import pytest

from substrate.curation.statements import NOT_LASTING, read_turn
from substrate.meaning.arrangements import arranged
from tests.substrate.meaning.test_events import made_up

VERBS = [("keep", "kept"), ("store", "stored"), ("rent", "rented"), ("park", "parked")]
THINGS = ["my canoe", "a lock-up garage", "our spare key", "the camper van", "my tools"]
WHERE = [
    "at {N} Farm",
    "in a unit on {N} Road",
    "behind the {N} church hall",
    "with my neighbour {N}",
    "under the stairs at {N} House",
]
SUBJECTS = ["I", "We"]


def _place(rng: random.Random, frame: str) -> str:
    return frame.format(N=made_up(rng, rng.choice([2, 3])))


def _cases(seed: int, n: int) -> list[tuple[str, str, str, str]]:
    rng = random.Random(seed)
    grid = list(itertools.product(SUBJECTS, VERBS, THINGS, WHERE))
    rng.shuffle(grid)
    return [(s, v[0], t, _place(rng, w)) for s, v, t, w in grid[:n]]


@pytest.mark.parametrize(("subject", "verb", "thing", "where"), _cases(7, 24))
def test_a_present_verb_with_a_thing_and_a_place_is_an_arrangement(
    subject: str, verb: str, thing: str, where: str
) -> None:
    assert arranged(f"{subject} {verb} {thing} {where}.")
    assert arranged(f"{subject} {verb} {thing} {where} now.")


@pytest.mark.parametrize(("subject", "verb", "thing", "where"), _cases(11, 12))
def test_the_same_shape_in_the_past_negated_or_hedged_is_not(
    subject: str, verb: str, thing: str, where: str
) -> None:
    past = dict(VERBS)[verb]
    assert not arranged(f"{subject} {past} {thing} {where} last week.")
    assert not arranged(f"{subject} don't {verb} {thing} {where}.")
    assert not arranged(f"{subject} might {verb} {thing} {where}.")
    assert not arranged(f"{subject} want to {verb} {thing} {where}.")


@pytest.mark.parametrize("wish", ["need", "want", "hope for"])
def test_wanting_a_thing_somewhere_is_not_having_it_there(wish: str) -> None:
    place = made_up(random.Random(wish), 3)
    assert not arranged(f"I {wish} a locker at {place} Leisure Centre.")


@pytest.mark.parametrize(
    "when", ["at the weekend", "on Mondays", "in the morning", "every evening at night"]
)
def test_a_time_is_not_a_place(when: str) -> None:
    assert not arranged(f"I see my sister {when}.")


@pytest.mark.parametrize("pronoun", ["it", "them", "that"])
def test_a_pronoun_names_no_thing(pronoun: str) -> None:
    assert not arranged(f"I keep {pronoun} at the {made_up(random.Random(pronoun))} depot.")


@pytest.mark.parametrize("holder", ["my neighbour {N}", "the couple at number 14", "{N}'s mum"])
def test_a_thing_of_theirs_said_to_be_with_someone_is_an_arrangement(holder: str) -> None:
    name = made_up(random.Random(holder), 2)
    assert arranged(f"My spare key is with {holder.format(N=name)}.")
    assert not arranged(f"The spare key was with {holder.format(N=name)}.")


@pytest.mark.parametrize(("subject", "verb", "thing", "where"), _cases(19, 10))
def test_capture_keeps_an_arrangement_its_phrase_cues_miss(
    subject: str, verb: str, thing: str, where: str
) -> None:
    turn = f"{subject} {verb} {thing} {where}."
    readings = read_turn(turn, None)
    assert [r.statement.text for r in readings if r.statement] == [turn]


@pytest.mark.parametrize("wish", ["need", "would like", "am looking for"])
def test_capture_still_skips_a_wish_of_that_shape(wish: str) -> None:
    place = made_up(random.Random(wish), 3)
    readings = read_turn(f"I {wish} a locker at {place} Leisure Centre.", None)
    assert [r.why for r in readings] == [NOT_LASTING]
