"""Where an Arabic statement says the speaker lives, by the analyser's root
or lemma of its verb or participle, whatever its form or dialect; generated
over forms, places and adverbs so no list of sentences can pass it."""

from __future__ import annotations

import pytest

from substrate.meaning.events import read_events

FORMS = ["أسكن", "ساكن", "ساكنة", "ساكنين", "نسكن", "أقيم", "انتقلت", "انتقلنا", "استقرينا"]
PLACES = ["حي الورود", "مدينة الزهراء", "شقة في حي النخيل", "فيلا بالمرج", "عمّان الغربية"]
BETWEEN = ["", "حالياً ", "من زمان "]


@pytest.mark.parametrize("form", FORMS)
def test_a_verb_or_participle_of_dwelling_names_where_the_speaker_lives(form: str) -> None:
    for n, place in enumerate(PLACES):
        said = f"{form} {BETWEEN[n % len(BETWEEN)]}في {place}"
        state = read_events(said).state
        assert state is not None and state.family == "home", said
        assert place.split()[0] in state.text, (said, state)


@pytest.mark.parametrize(
    "said",
    [
        "ساكنة الحي طيبون",  # the residents, not where one lives
        "سكان العمارة لطيفين",
        "لا أسكن في حي الورود",  # negated
        "لم أسكن في مدينة الزهراء",
    ],
)
def test_residents_or_a_negated_dwelling_name_no_home(said: str) -> None:
    assert read_events(said).state is None, said
