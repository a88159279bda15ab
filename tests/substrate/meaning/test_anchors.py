"""Changes anchored to the facts they name, generated around each mechanism:
the ways of saying a thing is over (no more X; over, done or finished with X;
resigned as X; a particle the tagger reads as an adverb), and which current
fact an ended thing names by its lemmas (head and modifiers, a gerund and its
verb, whose thing it was), refusing to choose between facts that share only
the head. Names and modifiers are made up per case, so no rule can know them."""

from __future__ import annotations

import random
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.meaning.anchors import anchor
from substrate.meaning.events import read_events
from substrate.pages import FactBullet
from tests.substrate.meaning.test_events import made_up, names

HEADS = ["league", "committee", "choir", "club", "rota", "book group", "quiz team", "box"]


def fact(text: str, key: str, day: date = date(2024, 1, 1)) -> FactBullet:
    return FactBullet(key, day, text, slot=reading_of(text).slot)


def said(text: str) -> FactBullet:
    return FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), text)


@pytest.mark.parametrize(
    "frame",
    [
        "no more {t} for me",
        "No more {t}, it was costing a fortune",
        "It's over with the {t}.",
        "I'm done with the {t}",
        "We're finished with the {t} now",
        "I've resigned as chair of the {t}",
        "stepped down as treasurer of the {t} last night",
        "wrapped up the {t} for good",
    ],
)
def test_every_way_of_saying_a_thing_is_over_names_it(frame: str) -> None:
    rng = random.Random(frame)
    for head in HEADS[:5]:
        thing = f"{made_up(rng).lower()} {head}"
        ends = read_events(frame.format(t=thing)).ends
        assert any(head.split()[-1] in e for e in ends), (frame, thing, ends)


@pytest.mark.parametrize("name", names(6, 11))
def test_a_particle_read_as_an_adverb_still_makes_the_predicate(name: str) -> None:
    for frame in ("{n} moved out in January", "{n} moved out last week, it's quiet"):
        assert any(name in e for e in read_events(frame.format(n=name)).ends), frame


@pytest.mark.parametrize("frame", ["I have no more than {k} {t}", "I'm not done with the {t}"])
def test_no_more_than_and_a_negated_done_end_nothing(frame: str) -> None:
    for head in HEADS[:4]:
        assert read_events(frame.format(k=3, t=head)).ends == (), frame


@pytest.mark.parametrize("head", HEADS)
def test_an_ended_thing_ends_the_fact_that_shares_its_head_and_modifier(head: str) -> None:
    rng = random.Random(head)
    for _ in range(3):
        mine, other, place = (made_up(rng).lower(), made_up(rng).lower(), made_up(rng))
        target = fact(f"Wednesday nights = {mine} {head} at {place}", "aaaaaaaaaaaa")
        beside = fact(f"every spring I help run the {other} {head}", "cccccccccccc")
        walks = fact("I like long walks on the beach", "dddddddddddd")
        new = said(f"Quit the {mine} {head}, the others were way too intense")
        decision = decide(new, reading_of(new.text), [target, beside, walks])
        assert decision.action == "retract", (head, mine, decision)
        assert decision.targets == ("aaaaaaaaaaaa",), (head, mine, decision)


@pytest.mark.parametrize("head", HEADS)
def test_two_facts_sharing_only_the_head_are_not_chosen_between(head: str) -> None:
    rng = random.Random(head)
    one = fact(f"Mondays it's the {head} at {made_up(rng)}", "aaaaaaaaaaaa")
    two = fact(f"I also help with a {head} in {made_up(rng)}", "cccccccccccc")
    new = said(f"Quit the {head}, too much politics")
    decision = decide(new, reading_of(new.text), [one, two])
    assert decision.action == "add" and decision.said == "nothing to retract", decision


@pytest.mark.parametrize(
    ("verb", "gerund"),
    [("tutor", "tutoring"), ("coach", "coaching"), ("mentor", "mentoring"),
     ("babysit", "babysitting"), ("volunteer", "volunteering")],
)  # fmt: skip
def test_an_activity_named_by_its_gerund_ends_the_fact_that_does_it(verb: str, gerund: str) -> None:
    rng = random.Random(verb)
    target = fact(f"I {verb} at {made_up(rng)} on Tuesday evenings", "aaaaaaaaaaaa")
    beside = fact(f"I work at {made_up(rng)} Labs as an engineer", "cccccccccccc")
    new = said(f"wrapped up {gerund} for good, my last one passed")
    decision = decide(new, reading_of(new.text), [target, beside])
    assert decision.action == "retract" and decision.targets == ("aaaaaaaaaaaa",), decision


@pytest.mark.parametrize("name", names(6, 12))
def test_a_thing_named_by_whose_it_was_anchors_to_that_person_s_fact(name: str) -> None:
    assert anchor(f"We foster a teenager, {name}, through the council", f"{name}'s placement")
    assert not anchor("our own two are 8 and 11", f"{name}'s placement")


@pytest.mark.parametrize("head", HEADS)
def test_a_thing_anchors_nothing_without_its_head(head: str) -> None:
    rng = random.Random(head)
    mine = made_up(rng).lower()
    assert anchor(f"Tuesdays I do pottery at {made_up(rng)}", f"the {mine} {head}") == 0


@pytest.mark.parametrize("head", HEADS)
def test_a_thing_told_apart_by_its_words_is_not_another_of_its_kind(head: str) -> None:
    rng = random.Random(head + "kind")
    told, other, kind = made_up(rng).lower(), made_up(rng), head.split()[-1]
    assert anchor(f"I sing in the {kind} at {other}", f"the {told} {head}") == 0
    assert anchor(f"I sing in the {told} {head} at {other}", f"the {told} {head}") > 0


@pytest.mark.parametrize(
    "frame", ["anyway I've packed in the {t}", "We traded in the {t} last week"]
)
def test_a_preposition_parsed_where_a_particle_belongs_still_makes_the_end(frame: str) -> None:
    rng = random.Random(frame)
    for head in ("violin", "flat", "allotment", "van"):
        thing = f"{made_up(rng).lower()} {head}"
        ends = read_events(frame.format(t=thing)).ends
        assert any(head in e for e in ends), (frame, thing, ends)


@pytest.mark.parametrize("verb", [("drink", "drinking"), ("play", "playing"), ("read", "reading")])
def test_an_activity_with_its_object_ends_only_the_fact_of_that_object(
    verb: tuple[str, str],
) -> None:
    rng = random.Random(verb[0])
    for _ in range(3):
        said, other = made_up(rng), made_up(rng, 3)
        kept = fact(f"I {verb[0]} {other} every morning", "aaaaaaaaaaaa")
        new = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), f"I stopped {verb[1]} {said}.")
        assert decide(new, reading_of(new.text), [kept]).action != "retract", (said, other)
        ended = fact(f"I {verb[0]} {said} every morning", "cccccccccccc")
        decision = decide(new, reading_of(new.text), [kept, ended])
        assert decision.action == "retract" and decision.targets == ("cccccccccccc",), decision


@pytest.mark.parametrize("word", ["ألماني", "ألبوم", "ألعاب", "أل{x}"])
def test_an_arabic_word_opening_with_a_hamzas_alef_meets_it_with_the_article(word: str) -> None:
    rng = random.Random(word)
    for _ in range(3):
        said = word.format(x="".join(rng.choice("بتجدرزسشصطعفقكمنهي") for _ in range(3)))
        fact = f"بتعلم {said} بمعهد في المدينة"
        assert anchor(fact, f"ال{said}") > 0, said  # "وقفت الألماني" names "ألماني"
        assert anchor(fact, f"بال{said}") > 0, said
