"""An Arabic statement is a plan, a wish or a condition by a whole word ("لو",
"هل", "قد") or by the future written onto its verb ("سأنتقل"), never by the
first letters of a name or a noun ("لولو", "هلال", "قدرية", "سناء", "سنة")."""

from __future__ import annotations

import itertools

import pytest

from substrate.meaning.reading import read_text
from substrate.meaning.statements import ASSERTION, CESSATION, HYPOTHETICAL, kind_of

# Names and nouns whose first letters spell a particle of the unreal.
_OPENERS = ("لولو", "لورا", "هلال", "هلا", "قدرية", "قدري", "سناء", "سنان", "سأم", "سندس", "سنة")
_SAID = ("{} صديقتي من أيام الجامعة", "{} تعيش في جدة", "{} ما زالت معنا", "{} عمرها ست سنين")
_PARTICLES = ("لو", "هل", "قد", "ربما", "إذا", "أتمنى")
_WHAT = ("انتقلت إلى دبي", "أبيع السيارة", "أترك الشغل")
_FUTURES = ("سأنتقل إلى دبي", "سننتقل الشهر الجاي", "سأبيع السيارة", "سنسافر إلى لندن",
            "وسأترك الشغل", "ستبدأ أختي الجامعة")  # fmt: skip


@pytest.mark.parametrize(("opener", "frame"), list(itertools.product(_OPENERS, _SAID)))
def test_a_name_that_opens_like_a_particle_states_a_fact(opener: str, frame: str) -> None:
    assert kind_of(frame.format(opener))[0] == ASSERTION


@pytest.mark.parametrize(("particle", "what"), list(itertools.product(_PARTICLES, _WHAT)))
def test_a_particle_of_its_own_is_not_so_yet(particle: str, what: str) -> None:
    assert kind_of(f"{particle} {what}")[0] == HYPOTHETICAL


@pytest.mark.parametrize("text", _FUTURES)
def test_the_future_written_onto_the_verb_is_not_so_yet(text: str) -> None:
    assert kind_of(text)[0] == HYPOTHETICAL


@pytest.mark.parametrize("name", ["لولو", "هلال", "قدري", "سنان"])
def test_a_death_of_one_so_named_is_an_end_of_them(name: str) -> None:
    reading = read_text(f"{name} مات الله يرحمه 💔")
    assert reading.slot.kind == CESSATION
    assert reading.slot.olds == (name,)
