"""The Arabic reading, generated around each mechanism: a verb of ending or
exchange by its lemma in every person and dialect spelling, what it names by
Arabic's verb-first order (after it, after من, or before an intransitive end),
nothing for a negated or future verb; and a thing matched to a fact through
the clitics Arabic writes onto words. Names are made up per case."""

from __future__ import annotations

import random
from datetime import date

import pytest

from substrate.consolidation.lifecycle import decide, reading_of
from substrate.consolidation.naming import subject_phrase
from substrate.meaning.anchors import anchor
from substrate.meaning.arabic import (
    arabic_clauses,
    arabic_ends,
    first_person_verb,
    only_verb,
    unjoined,
    verb_class,
)
from substrate.meaning.subjects import _speaks_arabic, read_subject
from substrate.meaning.words import title_problem
from substrate.pages import FactBullet

_SYLLABLES = ["زور", "كام", "ليف", "نار", "سيم", "بوت", "رام", "تيك", "دون", "ميس"]
_OTHERS = ["شاد", "جول", "فيز", "قار", "طوم"]


def made_up(rng: random.Random, syllables: list[str] = _SYLLABLES) -> str:
    return "".join(rng.choice(syllables) for _ in range(2))


# Each verb of ending, in the persons and spellings people write it.
ENDS = {
    "sell": ["بعت", "بعنا", "بعتُ", "وبعت"],
    "leave": ["تركت", "تركنا", "وتركت"],
    "quit": ["بطلت", "بطّلت", "بطلنا"],
    "stop": ["وقفت", "أوقفت", "اوقفت"],
    "cancel": ["ألغيت", "الغيت", "لغيت", "كنسلت"],
    "close": ["أغلقت", "قفلت", "أغلقنا"],
}
THINGS = ["{n}", "ال{n}", "اشتراك {n}", "سيارة {n}"]


@pytest.mark.parametrize("verb", sorted(ENDS))
def test_a_verb_of_ending_names_what_follows_it_in_every_spelling(verb: str) -> None:
    rng = random.Random(verb)
    for form in ENDS[verb]:
        assert verb_class(form) == "end", form
        name = made_up(rng)
        thing = rng.choice(THINGS).format(n=name)
        said = f"{form} {thing}، {rng.choice(['الحمد لله', 'من زمان', 'أخيراً'])}"
        assert any(name in e for e in arabic_ends(said)), (said, arabic_ends(said))


@pytest.mark.parametrize("form", ["انسحبت", "استقلت"])
def test_an_end_from_something_names_what_comes_after_from(form: str) -> None:
    rng = random.Random(form)
    for _ in range(4):
        name = made_up(rng)
        said = f"{form} من نادي {name}، ما عندي وقت"
        assert verb_class(form) is not None or any(name in e for e in arabic_ends(said))
        if verb_class(form) is not None:
            assert any(name in e for e in arabic_ends(said)), said


@pytest.mark.parametrize("form", ["ماتت", "مات", "توفي"])
def test_an_intransitive_end_names_its_subject_said_before_it(form: str) -> None:
    rng = random.Random(form)
    for _ in range(4):
        name = made_up(rng)
        said = f"{name} {form} الله يرحمها"
        assert arabic_ends(said) == (name,), said


@pytest.mark.parametrize("before", ["ما", "لم", "مش", "راح", "سوف"])
def test_a_negated_or_future_end_ends_nothing(before: str) -> None:
    rng = random.Random(before)
    for forms in ENDS.values():
        said = f"{before} {forms[0]} ال{made_up(rng)}"
        assert arabic_ends(said) == (), said


@pytest.mark.parametrize("form", ["بدلت", "غيرت", "حولت"])
def test_an_exchange_ends_its_object_not_what_it_brought(form: str) -> None:
    rng = random.Random(form)
    for _ in range(4):
        old, new = made_up(rng), made_up(rng, _OTHERS)
        ends = arabic_ends(f"{form} ال{old} ب{new}، أوفر بكثير")
        assert any(old in e for e in ends) and not any(new in e for e in ends), ends


@pytest.mark.parametrize(
    ("fact", "thing"),
    [
        ("عندي سيارة {n} من سنتين", "السيارة"),
        ("أنا عضو بنادي {n}", "النادي"),
        ("اشتراكي في {n} بلس", "اشتراك {n}"),
        ("حسابي في بنك {n}", "حسابي"),
        ("ماشية ب{n} صغيرة", "ال{n}"),
    ],
)
def test_a_thing_meets_its_fact_through_the_clitics_written_onto_words(
    fact: str, thing: str
) -> None:
    rng = random.Random(fact)
    for _ in range(4):
        name = made_up(rng)
        assert anchor(fact.format(n=name), thing.format(n=name)) > 0, (fact, thing, name)
        assert anchor("أحب المشي على البحر كل يوم", thing.format(n=name)) == 0


def test_an_arabic_end_retracts_the_fact_that_names_it_without_a_pronoun() -> None:
    rng = random.Random(7)
    for form in ("بعنا", "بطلت", "تركت"):
        name = made_up(rng)
        old = FactBullet("aaaaaaaaaaaa", date(2024, 1, 1), f"ماشية ب{name} صغيرة، بتكفيني")
        other = FactBullet("cccccccccccc", date(2024, 1, 1), "أحب المشي على البحر")
        new = FactBullet("bbbbbbbbbbbb", date(2024, 2, 1), f"{form} ال{name} أخيراً")
        decision = decide(new, reading_of(new.text), [old, other])
        assert decision.action == "retract" and decision.targets == ("aaaaaaaaaaaa",), decision


# Verbs the person says of themselves, in the past (ت, نا), the present (أ, ن)
# and a dialect's present with ب, none of them in the subject reader's word list.
FIRST_PERSON = ["طبخت", "غسلت", "رسمنا", "زرعت", "أطبخ", "نزرع", "برسم", "بنطبخ", "ربيت"]
THIRD_PERSON = ["يطبخ", "يزرعون", "رسم", "طبخوا", "يغسل"]


@pytest.mark.parametrize("verb", FIRST_PERSON)
def test_a_verb_the_analyser_reads_in_the_first_person_makes_the_fact_the_persons(
    verb: str,
) -> None:
    thing = made_up(random.Random(verb))
    assert first_person_verb(verb)
    assert read_subject(f"{verb} {thing} في البيت كل يوم").kind == "me"


@pytest.mark.parametrize("verb", THIRD_PERSON)
def test_a_verb_of_someone_else_is_not_the_persons(verb: str) -> None:
    assert not first_person_verb(verb)
    assert read_subject(f"{verb} {made_up(random.Random(verb))} في الحديقة").kind != "me"


@pytest.mark.parametrize("verb", FIRST_PERSON)
def test_a_relative_after_the_verb_is_its_subject(verb: str) -> None:
    assert not _speaks_arabic(f"{verb} أختي {made_up(random.Random(verb))}")


@pytest.mark.parametrize("verb", ["طبخت", "غسلت", "زرعت", "نزرع", "ربيت"])
def test_a_page_is_never_titled_by_the_verb_a_fact_opens_with(verb: str) -> None:
    thing = made_up(random.Random(verb))
    title = subject_phrase(f"{verb} ال{thing} الكبير في البيت")
    assert title is not None and not title.startswith(verb)
    assert title_problem(f"{verb} ال{thing}") is not None


@pytest.mark.parametrize("noun", ["بيت", "صقر", "زيت", "بنت"])
def test_a_word_that_may_also_be_a_noun_still_names_a_subject(noun: str) -> None:
    assert not only_verb(noun)
    assert title_problem(f"{noun} {made_up(random.Random(noun))}") is None


@pytest.mark.parametrize(
    ("verb", "to"), [("أهديت", "لمحمية"), ("بعنا", "لجارنا"), ("تبرعت", "للجمعية")]
)
def test_what_a_giving_away_ends_is_what_was_given_not_to_whom(verb: str, to: str) -> None:
    rng = random.Random(verb)
    for _ in range(5):
        name = "".join(rng.choice("بتثجحخدذرزسشصضطظعغفقكمنهي") for _ in range(4))
        assert arabic_ends(f"{verb} {name} {to} الأسبوع الماضي") == (name,)


@pytest.mark.parametrize("then", ["وتوظف في شركة", "وسافر إلى كندا", "ورجع إلى البيت"])
def test_an_end_with_nothing_after_it_does_not_take_the_next_verb(then: str) -> None:
    assert not [e for e in arabic_ends(f"سالم تخرج {then}") if e.startswith("و")]


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        ("بعت اللكزس وخذيت جيب", ["بعت اللكزس", "وخذيت جيب"]),
        ("وقفت الكيتو، الحين ماشي على صيام", ["وقفت الكيتو", "الحين ماشي على صيام"]),
        ("أختي وليد وسلمى عندهم قطة", ["أختي وليد وسلمى عندهم قطة"]),
    ],
)
def test_an_arabic_sentence_is_cut_at_a_comma_and_before_a_joined_verb(
    sentence: str, parts: list[str]
) -> None:
    assert arabic_clauses(sentence) == parts
    if len(parts) > 1 and parts[-1].startswith("و"):
        assert unjoined(parts[-1]) == parts[-1][1:]
