"""Everyday wordings of change, cessation and words passed on, English and Arabic:
the development set `bench/wordings.py` reports on and `bench/meaning_train.py`
fits the family head on.

Written by us for these benchmarks (not drawn from any outside set). Each
family has statements of a value (`first`), everyday ways of saying the value
changed (`change`: no "moved to" needed: "we finally got the keys to our flat
in {w}"), ways of saying it ended (`ended`, naming the old value `{v}`), and
topical sentences that state no value of it (`topical`: "the boiler broke
again"). `PASSED_ON` frames put a change into someone else's mouth or into
text to transform. Templates alternate between the halves (`half_of`): even
positions are the development half (rules and the head are chosen on it),
odd ones the held-out half the figures are reported on.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str  # the slot family the change belongs to
    lang: str
    first: list[str]
    change: list[str]
    ended: list[str]
    topical: list[str]
    values: list[tuple[str, str]]  # (old, new)


FAMILIES: list[Family] = [
    Family(
        "home",
        "en",
        [
            "I live in {v}.",
            "We're based in {v}.",
            "I live on {v} in the old town.",
            "Our flat is in {v}.",
            "I've lived in {v} for three years.",
        ],
        [
            "We finally got the keys to our flat in {w}!",
            "Our new place is in {w}.",
            "I'm living in {w} now.",
            "We've settled into a lovely house in {w}.",
            "I moved down to {w} last month.",
            "Home is {w} these days.",
            "We just moved into a flat in {w}.",
            "I relocated to {w} for work.",
            "We bought a house in {w} and moved in this week.",
            "I'm in {w} now, the move went fine.",
            "These days I live in {w}.",
            "Big news: we moved to {w}!",
            "Home's {w} now.",
            "Our address is in {w} these days.",
        ],
        [
            "I no longer live in {v}.",
            "We moved out of {v} last week.",
            "I don't live in {v} anymore.",
            "I left {v} in the spring.",
        ],
        [
            "The boiler broke again at home.",
            "Our neighbours are lovely.",
            "I painted the kitchen yellow.",
            "The rent went up by fifty pounds.",
            "I need a new sofa for the living room.",
            "Our landlord fixed the heating.",
        ],
        [("Leeds", "Salford"), ("Dalry Road", "Leith"), ("Lyon", "Paris"), ("Didsbury", "Bristol")],
    ),
    Family(
        "work",
        "en",
        [
            "I work at {v}.",
            "I'm a data analyst at {v}.",
            "I've been working for {v} since 2019.",
            "I work at {v} as an analyst.",
            "My employer is {v}.",
        ],
        [
            "I've just started at {w} as head of data.",
            "I'm now head of data at {w}.",
            "I joined {w} in March.",
            "I started a new job at {w}.",
            "I got a job at {w}.",
            "I switched jobs, I'm at {w} now.",
            "I'm working for {w} these days.",
            "I accepted an offer from {w} and started on Monday.",
            "My new employer is {w}.",
            "I left {v} and now work at {w}.",
            "I started working at {w} last week.",
            "Today was my first day at {w}.",
            "Had my first day at {w} on Monday.",
            "I signed a contract with {w}.",
            "Work is {w} now, I started in May.",
        ],
        [
            "I left {v} last week.",
            "I quit {v}.",
            "I resigned from {v} in June.",
            "I no longer work at {v}.",
        ],
        [
            "Work was busy this week.",
            "My boss is on holiday.",
            "We had a long team meeting.",
            "The office coffee machine is broken.",
            "I have a deadline on Friday.",
            "My colleague brought cake.",
        ],
        [
            ("Brightwater", "Kestrel"),
            ("Initech", "Acme Robotics"),
            ("Globex", "Stark Labs"),
            ("Northwind", "Contoso"),
        ],
    ),
    Family(
        "drink",
        "en",
        [
            "I drink {v} every morning.",
            "I have {v} in the mornings.",
            "I prefer {v}.",
            "My morning drink is {v}.",
        ],
        [
            "Honestly I've gone off {v}, it's {w} every morning now.",
            "I've switched from {v} to {w} in the mornings.",
            "I drink {w} now.",
            "These days I have {w} in the mornings.",
            "I've switched to {w}.",
            "I prefer {w} now.",
            "It's {w} every morning these days.",
            "I'm mostly drinking {w} instead.",
        ],
        [
            "I've gone off {v}.",
            "I don't drink {v} anymore.",
            "I gave up {v}.",
            "I stopped drinking {v}.",
        ],
        [
            "I bought a new kettle.",
            "The café downstairs closed.",
            "I spilled tea on my desk.",
            "My mug has a chip in it.",
        ],
        [
            ("Earl Grey", "black coffee"),
            ("tea", "coffee"),
            ("coffee", "green tea"),
            ("espresso", "matcha"),
        ],
    ),
    Family(
        "relation",
        "en",
        ["My sister Iona lives in {v}.", "My brother Sam lives in {v}.", "Iona lives in {v}."],
        [
            "Iona's moved down to {w} for her PhD.",
            "Iona lives in {w} now.",
            "Iona moved to {w} last month.",
            "Iona's living in {w} these days.",
            "Iona relocated to {w} for work.",
        ],
        ["Iona no longer lives in {v}.", "Iona moved out of {v}."],
        [
            "Iona called me yesterday.",
            "Iona is training for a marathon.",
            "Iona's cat is called Pip.",
        ],
        [("Glasgow", "Bristol"), ("Dundee", "York"), ("Perth", "Cardiff")],
    ),
    Family(
        "vehicle",
        "en",
        ["I drive a {v}.", "We have a {v}.", "I own a {v}."],
        [
            "We got a new car, a {w}.",
            "I bought a {w} last weekend.",
            "I drive a {w} now.",
            "We traded in the old car for a {w}.",
            "I've just picked up my new {w}.",
            "We swapped the {v} for a {w}.",
        ],
        ["I sold my {v}.", "We got rid of the {v}.", "My {v} is gone, sold it last week."],
        ["I washed the car on Sunday.", "Parking near work is awful.", "The car needs new tyres."],
        [("Fiat", "Skoda"), ("Volvo", "Tesla"), ("Ford", "Toyota")],
    ),
    Family(
        "diet",
        "en",
        ["I'm {v}.", "I've been {v} for years."],
        ["I'm {w} now.", "I went {w} last month.", "I've gone {w}.", "I'm {w} these days."],
        ["I'm no longer {v}.", "I stopped being {v}."],
        ["I cooked a big curry last night.", "I love trying new restaurants."],
        [("vegetarian", "vegan"), ("vegan", "pescatarian")],
    ),
    Family(
        "home",
        "ar",
        ["أسكن في {v}.", "أعيش في {v}.", "نسكن في {v}."],
        [
            "انتقلت إلى {w}.",
            "اشترينا شقة في {w}.",
            "صرت أسكن في {w}.",
            "أسكن الآن في {w}.",
            "انتقلنا إلى {w} الشهر الماضي.",
        ],
        ["لم أعد أسكن في {v}.", "تركت {v}."],
        ["تعطل السخان في البيت.", "جيراننا لطفاء جدا."],
        [("القاهرة", "دبي"), ("عمّان", "بيروت"), ("الرياض", "جدة")],
    ),
    Family(
        "work",
        "ar",
        ["أعمل في شركة {v}.", "أعمل لدى {v}."],
        [
            "انضممت إلى {w}.",
            "بدأت العمل في شركة {w}.",
            "صرت أعمل في {w}.",
            "التحقت بشركة {w}.",
            "أعمل الآن في {w}.",
        ],
        ["تركت العمل في {v}.", "استقلت من {v}.", "لم أعد أعمل في {v}."],
        ["كان العمل مزدحما هذا الأسبوع.", "مديري في إجازة."],
        [("أرامكو", "سابك"), ("زين", "أورنج"), ("طلبات", "كريم")],
    ),
]
# Frames that pass a change on: another person's words, text to transform, a
# supposition. {inner} is a change statement in the first person.
PASSED_ON_EN = [
    'Proofread this please: "{inner}"',
    "Can you proofread this for my sister: '{inner}'",
    "My boss wrote: '{inner}'",
    'Karim texted me "{inner}"',
    "Translate this to French: {inner}",
    "Can you make this sound friendlier? {inner}",
    'My landlord emailed: "{inner}"',
    "Here is a message from Tom: {inner}",
    "Reply to this for me: '{inner}'",
    "If {lower}",
    "Imagine {lower}",
    "Fix the spelling: {inner}",
    "Could you make this more formal? {inner}",
    "Tidy this up please: {inner}",
]
PASSED_ON_AR = [
    'كتب لي كريم: "{inner}"',
    "ترجم هذا النص: {inner}",
    "قالت أختي: {inner}",
    "لو {inner}",
]


# The first wordings set (family, older, newer wordings): {v} and {w} are values of the family.
CLASSIC: list[tuple[str, list[str], list[str], list[tuple[str, str]]]] = [
    (
        "home",
        ["I live in {v}.", "We're based in {v}."],
        [
            "I moved to {w} last month.",
            "We bought a house in {w} and moved in this week.",
            "I'm living in {w} now.",
            "We just relocated to {w}.",
            "These days I live in {w}.",
            "I no longer live in {v}; I'm in {w} now.",
        ],
        [("Leeds", "Salford"), ("Didsbury", "Bristol"), ("Lyon", "Paris")],
    ),
    (
        "employer",
        ["I work at {v}.", "I'm at {v}."],
        [
            "I started a new job as a product manager at {w}.",
            "I joined {w} in March.",
            "I left {v} and now work at {w}.",
            "I'm working for {w} these days.",
            "I got a job at {w}.",
            "I switched jobs, I'm at {w} now.",
        ],
        [("Initech", "Acme Robotics"), ("Globex", "Stark Labs"), ("Northwind", "Contoso")],
    ),
    (
        "role",
        ["I'm a {v}.", "I work as a {v}."],
        [
            "I got promoted to {w}.",
            "My new title is {w}.",
            "I'm now a {w}.",
            "I became a {w} last month.",
        ],
        [("data analyst", "senior analyst"), ("staff engineer", "engineering manager")],
    ),
    (
        "diet",
        ["I'm {v}."],
        ["I'm {w} now.", "I'm {w} these days.", "I went {w} last month.", "I've gone {w}."],
        [("vegetarian", "vegan"), ("vegan", "pescatarian")],
    ),
    (
        "preference",
        ["I prefer {v}.", "Prefer {v}, honestly."],
        [
            "I prefer {w} now.",
            "Prefer {w} these days.",
            "I switched to {w}.",
            "Honestly, I prefer {w}.",
        ],
        [("dark mode", "light mode"), ("tea", "coffee")],
    ),
    (
        "arabic home",
        ["أسكن في {v}.", "أعيش في {v}."],
        ["انتقلت إلى {w}.", "اشترينا شقة في {w}.", "صرت أسكن في {w}.", "أسكن الآن في {w}."],
        [("القاهرة", "دبي"), ("عمّان", "بيروت")],
    ),
    (
        "arabic employer",
        ["أعمل في شركة {v}.", "أعمل لدى {v}."],
        ["انضممت إلى {w}.", "بدأت العمل في شركة {w}.", "صرت أعمل في {w}.", "التحقت بشركة {w}."],
        [("أرامكو", "سابك"), ("زين", "أورنج")],
    ),
]


# LongMemEval knowledge-update questions whose two evidence sentences (the pair
# `bench/wordings.py` draws) are not one value replaced by another: both stay
# true (two gadgets, two trips), or the sentences name no value. Labelled by
# hand from the questions and their answers; the pair is left out.
LME_NOT_UPDATES = {
    "0977f2af": "an Instant Pot, then an Air Fryer: both owned",
    "0ddfec37": "the two sentences share no fact",
    "1cea1afa": "no follower count in either sentence",
    "3ba21379": "the same model project, no new value",
    "5a4f22c0": "the second sentence states no employer",
    "69fee5aa": "a coin added: no count in the first sentence",
    "9ea5eabc": "two trips: the newer does not end the older",
    "f685340e": "seeing people play, then planning to play",
    "10e09553": "two fishing trips, each with its own catch",
}


def half_of(position: int) -> str:
    """Even template positions are the development half, odd ones held out."""
    return "dev" if position % 2 == 0 else "held"
