"""A change anchored to the thing it names: a statement of the person's own
that names a thing one of their current facts holds ("pottery", "the book
club", "oat milk") and says it took another's place (an end, an exchange, a
word of replacement, a new value told as new) supersedes that fact, on
whatever page of theirs it stands; a start alone, a thing no fact holds or a
statement with no word of replacement leaves it current. Things, places and
frames are combined per case; places are made up."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, date, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate
from substrate.consolidation.lifecycle import decide, reading_of
from substrate.pages import FactBullet, fact_bullets
from tests.made_up import arabic_name, made_up

THINGS = ["pottery", "archery", "fencing", "chess club", "choir", "karate", "rowing", "book club"]
OTHERS = ["life drawing", "bouldering", "kickboxing", "a ukulele group", "swimming"]
OLDS = [
    "Tuesday nights it's {t} at {p}",
    "I do {t} at {p} every week",
    "Every Saturday I go to {t} at {p}",
]
REPLACED = [
    "{T}'s on hold for now, I'm doing {o} instead",
    "no more {t} for me, it's {o} these days",
    "gave up {t}. {O} is my thing now",
    "{T} got boring, so I'm doing {o} now",
]
ADDED = [
    "I joined {o} at {p} last week",  # a start adds beside what was
    "{T} was brilliant tonight, {p} was packed",  # names it, replaces nothing
    "{O} is my thing now",  # replaces, but names no thing the fact holds
]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(frame: str, thing: str, other: str, place: str) -> str:
    return frame.format(t=thing, T=_cap(thing), o=other, O=_cap(other), p=place)


def _action(old: str, said: str) -> str:
    before = FactBullet("aaaaaaaaaaaa", date(2025, 1, 1), old, slot=reading_of(old).slot)
    after = FactBullet("bbbbbbbbbbbb", date(2025, 2, 1), said)
    return decide(after, reading_of(said), [before]).action


def _cases(frames: list[str], n: int) -> list[tuple[str, str, str]]:
    rng = random.Random(len(frames) * 31 + n)
    picked = rng.sample(list(itertools.product(THINGS, OTHERS, OLDS)), n)
    return [(_fill(o, t, x, made_up(rng)), t, x) for t, x, o in picked]


@pytest.mark.parametrize("frame", REPLACED)
def test_a_replacement_naming_the_things_fact_supersedes_it(frame: str) -> None:
    for old, thing, other in _cases(REPLACED, 6):
        said = _fill(frame, thing, other, "")
        assert _action(old, said) in ("update", "retract"), (old, said, reading_of(said))


@pytest.mark.parametrize("frame", ADDED)
def test_a_start_a_mention_or_another_thing_leaves_the_fact_current(frame: str) -> None:
    rng = random.Random(frame)
    for old, thing, other in _cases(ADDED, 6):
        said = _fill(frame, thing, other, made_up(rng))
        assert _action(old, said) == "add", (old, said, reading_of(said))


def test_someone_elses_change_to_the_thing_leaves_the_persons_fact() -> None:
    for old, thing, other in _cases(OLDS, 5):
        said = f"My sister says {thing} is over for her, she does {other} now"
        assert _action(old, said) == "add", (old, said)


def test_the_thing_anchors_across_the_persons_pages(settings: Settings) -> None:
    rng = random.Random(5)
    place = made_up(rng)
    old = f"I do yoga three times a week at home with {place}'s videos"
    new = "Yoga got boring. Reformer Pilates at a studio on Tuesdays is my thing now"
    remember(settings, old, now=datetime(2025, 1, 5, 9, tzinfo=UTC))
    consolidate(settings)
    said = remember(settings, new, now=datetime(2025, 3, 5, 9, tzinfo=UTC)).id
    consolidate(settings)
    bullets = {
        b.text.split(" _(")[0]: b
        for path in settings.workspace.concepts_dir.rglob("*.md")
        for b in fact_bullets(path.read_text())
    }
    assert bullets[old].status == "superseded" and bullets[old].by == said, bullets
    assert bullets[new].current


ARABIC_THINGS = ["السباحة", "الرسم", "البيانو", "الكاراتيه", "الخط العربي"]
MEASURES = ["مستوى", "جلسات", "دورة", "دروس"]
ARABIC_OLDS = ["أدرس {t} في {p}", "عندي تمارين {t} كل أسبوع في {p}"]


@pytest.mark.parametrize("measure", MEASURES)
def test_an_arabic_end_of_the_things_measure_ends_the_thing(measure: str) -> None:
    """An idafa whose head measures or parts the thing ("أنهيت مستوى السباحة")
    ends the fact that names the thing, and only that one."""
    rng = random.Random(measure)
    for thing, frame in itertools.product(ARABIC_THINGS, ARABIC_OLDS):
        old = frame.format(t=thing, p=arabic_name(rng))
        other = next(t for t in ARABIC_THINGS if t != thing and t.split()[0] not in thing)
        assert _action(old, f"أنهيت {measure} {thing} الأسبوع الماضي") == "retract", (old,)
        assert _action(old, f"أنهيت {measure} {other} الأسبوع الماضي") == "add", (old, other)


@pytest.mark.parametrize("verb,noun", [("بمشي", "المشي"), ("بركض", "الركض"), ("بمشي", "المشية")])
def test_an_arabic_dialect_present_meets_its_noun(verb: str, noun: str) -> None:
    """A dialect's present with its "ب" ("بمشي كل يوم") is the habit that "بدل
    المشي" ("instead of walking") replaces: the clitic comes off a four-letter
    word too; and "اشتركت" ("I subscribed") holds no "تركت" ("I left")."""
    rng = random.Random(verb + noun)
    for _ in range(3):
        old = f"{verb} كل يوم الصبح ساعة مع {arabic_name(rng)}"
        said = f"اشتركت في نادي {arabic_name(rng)} وصرت أتمرن بالليل بدل {noun}"
        assert _action(old, said) in ("update", "retract"), (old, said, reading_of(said))


JUDGED_OUT = [
    "{T} wasn't really me. {O} though? obsessed",
    "{T} just isn't for me",
    "{T} wasn't my thing",
]


@pytest.mark.parametrize("frame", JUDGED_OUT)
def test_a_thing_judged_not_the_persons_ends_its_fact(frame: str) -> None:
    """A negated copula whose complement is the person ("X wasn't really me",
    "X isn't for me") ends the fact that names X; said of a person, of someone
    else or of the future it ends nothing."""
    for old, thing, other in _cases(JUDGED_OUT, 6):
        said = _fill(frame, thing, other, "")
        assert _action(old, said) in ("update", "retract"), (old, said, reading_of(said))
        for kept in (f"{_cap(thing)} won't be for me", f"My sister says {thing} isn't for her"):
            assert _action(old, kept) == "add", (old, kept)
