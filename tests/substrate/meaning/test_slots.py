"""Reading a fact without a model: its subject, slot, value and what it says ended."""

from __future__ import annotations

import pytest

from substrate.consolidation.lifecycle import reading_of
from substrate.consolidation.naming import leading_name
from substrate.meaning.subjects import read_subject

# (fact, slot, value, values it says ended): each slot family in English and Arabic.
READINGS = [
    ("I live in Leeds.", "home", "leeds", ()),
    ("I moved from Leeds to Manchester last month.", "home", "manchester", ("leeds",)),
    ("We've been living in Porto since 2021.", "home", "porto", ()),
    ("انتقلت من عمّان إلى دبي الشهر الماضي.", "home", "دبي", ("عمّان",)),
    ("أسكن في الرياض.", "home", "الرياض", ()),
    ("I work at Acme.", "employer", "acme", ()),
    ("I left Northwind and now work at Acme.", "employer", "acme", ("northwind",)),
    ("تركت Globex وانضممت إلى Contoso.", "employer", "contoso", ("globex",)),
    ("I got promoted to team lead!", "role", "team lead", ()),
    ("I'm now a senior developer.", "role", "senior developer", ()),
    ("تمت ترقيتي إلى مدير فريق.", "role", "مدير فريق", ()),
    ("My new number is 07700 900123.", "phone", "07700900123", ()),
    ("رقمي الجديد هو 0791234567.", "phone", "0791234567", ()),
    ("I changed my email to sam@example.com.", "email", "sam@example.com", ()),
    ("بريدي الإلكتروني الجديد هو layla@example.com.", "email", "layla@example.com", ()),
    ("I broke up with Tom. I'm seeing Priya now.", "partner", "priya", ("tom",)),
    ("زوجتي اسمها ليلى.", "partner", "ليلى", ()),
    ("We adopted a cat named Miso.", "pet", "miso", ()),
    ("عندي قطة.", "pet", "قطة", ()),
    ("I'm studying architecture at university.", "school", "architecture", ()),
    ("I switched my course from law to economics.", "school", "economics", ("law",)),
    ("أدرس الهندسة المعمارية.", "school", "الهندسة المعمارية", ()),
    ("I switched from VS Code to Neovim.", "tool:editor", "neovim", ("vs code",)),
    ("We migrated the app from React to Svelte.", "tool:framework", "svelte", ("react",)),
    (
        "I bought a new MacBook Pro to replace my ThinkPad.",
        "tool:laptop",
        "macbook pro",
        ("thinkpad",),
    ),
    ("I'm vegan now.", "diet", "vegan", ()),
    ("أنا نباتي.", "diet", "نباتي", ()),
    ("I'm allergic to shellfish.", "allergy", "shellfish", ()),
    ("I prefer tea over coffee.", "pref:drink", "tea", ("coffee",)),
    ("These days I drink coffee instead of tea.", "pref:drink", "coffee", ("tea",)),
    ("أفضل القهوة على الشاي.", "pref:drink", "القهوة", ("الشاي",)),
    ("I switched to light mode.", "pref:theme", "light mode", ()),
]


@pytest.mark.parametrize(("text", "slot", "value", "olds"), READINGS)
def test_each_slot_family_is_read_in_both_languages(
    text: str, slot: str, value: str, olds: tuple[str, ...]
) -> None:
    reading = reading_of(text)
    assert (reading.slot, reading.value) == (slot, value)
    assert set(olds) <= set(reading.olds)


@pytest.mark.parametrize(
    "text",
    [
        "I used to live in Leeds.",
        "كنت أسكن في عمّان.",
        "Back when I was a student I worked at a bar.",
    ],
)
def test_a_fact_told_as_the_past_takes_no_slot(text: str) -> None:
    reading = reading_of(text)
    assert reading.past and reading.slot is None


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("We're in a hurry now.", None),  # no capital: no place
        ("I've moved to VS Code for coding now.", "tool:editor"),  # a tool, not a town
        ("My sister's email is anika@example.com.", None),  # hers, not mine
        ("I'm at the gym.", None),
        ("Call me on Tuesday about the invoice.", None),
    ],
)
def test_near_misses_take_no_wrong_slot(text: str, slot: str | None) -> None:
    assert reading_of(text).slot == slot


@pytest.mark.parametrize(
    ("text", "kind", "name", "relation"),
    [
        ("Yeah so I moved to Manchester in June", "me", None, None),
        ("Hi I'm Amara, I'm a nurse in Leeds.", "me", None, None),
        ("New phone number: 07700 900123.", "me", None, None),
        ("Big news: I moved from Madrid to Dublin!", "me", None, None),
        ("Oscar and I split up; I've been dating Chloe since the summer.", "me", None, None),
        ("My sister Anika moved to Berlin.", "named", "Anika", "sister"),
        ("أختي ليلى تعمل في دبي", "named", "ليلى", "sister"),
        ("Caroline: I went to a support group yesterday", "named", "Caroline", None),
        ("Caroline went to the LGBTQ support group", "named", "Caroline", None),
        ("the landlord called about the boiler", "other", None, None),
        ("Note: buy milk", "other", None, None),
    ],
)
def test_the_subject_is_who_the_fact_is_about(
    text: str, kind: str, name: str | None, relation: str | None
) -> None:
    subject = read_subject(text)
    assert (subject.kind, subject.name, subject.relation) == (kind, name, relation)


def test_a_relatives_fact_is_read_in_their_own_words() -> None:
    assert read_subject("My sister Anika moved to Berlin.").own == "I moved to Berlin."
    assert reading_of("My sister Anika moved to Berlin.").value == "berlin"
    assert reading_of("Caroline works at Acme.").slot == "employer"


@pytest.mark.parametrize(
    "text",
    ["Yes", "Yeah we're moving", "It is raining", "Hi I'm here", "Gina That was fun", "I'm tired"],
)
def test_a_filler_word_greeting_or_pronoun_is_never_a_title(text: str) -> None:
    title = leading_name(text)
    assert title is None or title.split()[0].lower() not in {
        "yes", "yeah", "it", "hi", "i'm", "that", "we're", "i"
    }  # fmt: skip
