"""The supersession development set: synthetic users whose facts change.

    python bench/supersession_data.py [--out bench/data/supersession.jsonl] [--seed 7]

Written by us for this benchmark (not drawn from any outside set). Each user
says things in the first person, dated over a year, in English or Arabic:
update chains over the slots people change most (home, employer, role,
phone, e-mail, partner, course, editor, framework, laptop, phone model,
diet, a drink preference, the theme they like), each a first value and one
or two later ones, told with change language ("I moved to", "تمت ترقيتي
إلى") or, on single-valued slots, without it; distractors (a sibling's home,
a colleague's employer, facts on other subjects, a second pet that joins the
first rather than replacing it); and backdated arrivals (an older value told
after the newer one, remembered with its own older date), and, in English,
words passed on (a boss's or a sister's move or job, text to proofread or
translate) and cessations of a value left long ago, told after the newest
value, neither of which may become current. Questions ask the
current value ("Where do I live?"), the value before it ("Where did I live
before Manchester?") and, for facts that accumulate, both.

One JSON line per user: `{"user", "lang", "statements": [{"text", "at"}]` in
arrival order, `"questions": [{"q", "kind": "current"|"history"|"both",
"slot", "answer": [values], "stale": [values]}]}`. Generated from a seed, so
the file is reproducible; users with an even number choose parameters, odd
ones report.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "data" / "supersession.jsonl"


@dataclass(frozen=True)
class SlotSpec:
    """Templates for one slot: `first` states a value, `change` replaces it with
    change language (`{old}` the value replaced), `plain` states a newer value
    without it (single-valued slots only), questions for the current and the
    earlier value, and the pool of values."""

    slot: str
    values: list[str]
    first: list[str]
    change: list[str]
    plain: list[str]
    current_q: list[str]
    history_q: list[str]


EN: list[SlotSpec] = [
    SlotSpec(
        "home",
        "Leeds Manchester Bristol Glasgow Lisbon Porto Denver Austin Toronto Berlin Oslo Dublin Madrid Lyon Seattle Boston Salford Cardiff Utrecht Valencia".split(),
        [
            "I live in {v}.",
            "I'm based in {v} at the moment.",
            "We live in a small flat in {v}.",
            "I've lived in {v} for about three years now.",
            "Home for me is {v}, near the old docks.",
        ],
        [
            "I moved to {v} last month.",
            "We just relocated to {v} for my partner's job.",
            "Big news: I moved from {old} to {v}!",
            "I'm living in {v} now, the move went fine.",
            "We've moved house, we're in {v} now.",
            "I relocated from {old} to {v} in the spring.",
            "We finally got the keys to our flat in {v}!",
            "Our new place is in {v}, we moved last weekend.",
            "Home's {v} these days.",
        ],
        ["I live in {v}.", "I'm based in {v}."],
        ["Where do I live?", "Which city am I based in?", "Where is home for me these days?"],
        ["Where did I live before {cur}?", "Which city did I live in before moving to {cur}?"],
    ),
    SlotSpec(
        "employer",
        [
            "Acme",
            "Northwind",
            "Globex",
            "Initech",
            "Contoso",
            "Hooli",
            "Vandelay",
            "Stark Labs",
            "Wayne Logistics",
            "Tyrell",
            "Cyberdyne",
            "Monarch",
            "Aperture",
            "Pied Piper",
        ],
        [
            "I work at {v}.",
            "I've been working for {v} since 2019.",
            "I work for {v} as part of the platform team.",
        ],
        [
            "I left {old} and now work at {v}.",
            "I just started a new job at {v}.",
            "I joined {v} this week.",
            "I quit {old}; I'm working at {v} now.",
            "I've switched jobs, I'm at {v} now.",
            "I've just started at {v} as head of data.",
            "Today was my first day at {v}.",
        ],
        ["I work at {v}.", "I work for {v}."],
        ["Where do I work?", "Which company do I work for?", "Who is my employer?"],
        ["Where did I work before {cur}?", "Which company was I at before {cur}?"],
    ),
    SlotSpec(
        "role",
        [
            "junior developer",
            "senior developer",
            "team lead",
            "staff engineer",
            "data analyst",
            "senior analyst",
            "product manager",
            "charge nurse",
            "head of design",
            "engineering manager",
        ],
        ["I work as a {v}.", "My job title is {v}.", "I'm a {v} on the payments team."],
        [
            "I got promoted to {v}!",
            "I was promoted to {v} last week.",
            "I'm now a {v}, the promotion came through.",
            "My new title is {v}.",
        ],
        ["My job title is {v}."],
        ["What is my job title?", "What's my role at work?"],
        ["What was my job title before I became {cur}?", "What was my role before {cur}?"],
    ),
    SlotSpec(
        "phone",
        [
            "07700 900123",
            "07700 900456",
            "07700 900789",
            "+44 7700 900321",
            "+1 555 0142",
            "+1 555 0199",
            "0161 496 0012",
            "+351 912 345 678",
        ],
        ["My phone number is {v}.", "My mobile number is {v}."],
        [
            "My new number is {v}.",
            "I changed my phone number, it's {v} now.",
            "New phone number: {v}.",
        ],
        ["My phone number is {v}."],
        ["What's my phone number?", "Which number can people call me on?"],
        ["What was my old phone number?", "What phone number did I have before {cur}?"],
    ),
    SlotSpec(
        "email",
        [
            "sam.okafor@example.com",
            "s.okafor@mailbox.example",
            "amara.k@example.org",
            "jtan@example.net",
            "lina.h@post.example",
            "dev.rao@example.com",
            "mo.farah@inbox.example",
        ],
        ["My email is {v}.", "My email address is {v}."],
        ["My new email address is {v}.", "I changed my email to {v}, please use that from now on."],
        ["My email address is {v}."],
        ["What's my email address?", "Which email should be used for me?"],
        ["What was my previous email address?"],
    ),
    SlotSpec(
        "partner",
        "Priya Jonas Mateo Chloe Daniel Yara Noah Ines Tomas Leila Oscar Mei".split(),
        ["My partner's name is {v}.", "I'm dating {v}.", "My girlfriend is called {v}."],
        [
            "I broke up with {old}. I'm seeing {v} now.",
            "{old} and I split up; I've been dating {v} since the summer.",
            "I'm engaged to {v} now, after {old} and I separated last year.",
        ],
        [],
        ["Who is my partner?", "Who am I dating?"],
        ["Who was I with before {cur}?"],
    ),
    SlotSpec(
        "school",
        [
            "computer science",
            "architecture",
            "economics",
            "nursing",
            "mechanical engineering",
            "graphic design",
            "law",
            "biology",
        ],
        ["I'm studying {v} at university.", "I'm doing a degree in {v}."],
        [
            "I switched my course from {old} to {v}.",
            "I changed my major to {v}.",
            "I dropped {old} and I'm studying {v} now.",
        ],
        ["I'm studying {v}."],
        ["What am I studying?", "What is my degree in?"],
        ["What did I study before switching to {cur}?"],
    ),
    SlotSpec(
        "tool:editor",
        ["VS Code", "Neovim", "Emacs", "PyCharm", "Sublime Text", "Zed", "Helix"],
        ["I use {v} for all my coding.", "My editor is {v}."],
        [
            "I switched from {old} to {v}.",
            "I've moved to {v} for coding now.",
            "These days I code in {v} instead of {old}.",
        ],
        ["I use {v} for coding."],
        ["Which code editor do I use?", "What editor do I write code in?"],
        ["Which editor did I use before {cur}?"],
    ),
    SlotSpec(
        "tool:framework",
        ["React", "Vue", "Svelte", "Angular", "Django", "Rails", "Flask"],
        ["Our frontend is built with {v}.", "My side project uses {v}."],
        [
            "We migrated the app from {old} to {v}.",
            "I rewrote my side project in {v}, goodbye {old}.",
            "We switched to {v} for the new app.",
        ],
        [],
        ["What framework does my project use?", "Which framework is the app built with?"],
        ["Which framework did we use before {cur}?"],
    ),
    SlotSpec(
        "tool:laptop",
        ["ThinkPad", "MacBook Air", "MacBook Pro", "Dell XPS", "Framework laptop"],
        ["I work on a {v}.", "My laptop is a {v}."],
        ["I bought a new {v} to replace my {old}.", "I upgraded from a {old} to a {v}."],
        ["My laptop is a {v}."],
        ["What laptop do I have?", "Which laptop do I work on?"],
        ["What laptop did I have before the {cur}?"],
    ),
    SlotSpec(
        "diet",
        ["vegetarian", "vegan", "pescatarian"],
        ["I'm vegetarian.", "I'm a vegetarian."],
        ["I went vegan in the spring.", "I've become vegan, no more cheese.", "I'm vegan now."],
        [],
        ["What is my diet?", "Do I eat meat or fish?"],
        ["What was my diet before I went {cur}?"],
    ),
    SlotSpec(
        "pref:drink",
        ["tea", "coffee"],
        ["I prefer tea over coffee.", "I'm a tea person, I drink it every morning."],
        [
            "I've switched to coffee in the mornings, black, no milk.",
            "I prefer coffee now, I gave up tea.",
            "These days I drink coffee instead of tea.",
            "Honestly I've gone off tea, it's strong black coffee every morning now.",
        ],
        [],
        ["What do I drink in the morning?", "Do I prefer tea or coffee?"],
        ["What did I drink before I switched to {cur}?"],
    ),
    SlotSpec(
        "pref:theme",
        ["dark mode", "light mode"],
        ["I prefer dark mode in every app.", "I always use dark mode."],
        ["I prefer light mode now, dark mode strains my eyes.", "I switched to light mode."],
        [],
        ["Do I prefer dark mode or light mode?", "Which colour theme do I like?"],
        ["Which theme did I use before switching to {cur}?"],
    ),
]
# Fixed pairs for slots whose values are ordered (a promotion goes up; a drink swaps).
ORDERED = {
    "role": [
        ["junior developer", "senior developer", "team lead"],
        ["data analyst", "senior analyst", "product manager"],
        ["staff engineer", "engineering manager"],
        ["charge nurse", "head of design"],
    ],
    "diet": [["vegetarian", "vegan"]],
    "pref:drink": [["tea", "coffee"]],
    "pref:theme": [["dark mode", "light mode"]],
}

AR: list[SlotSpec] = [
    SlotSpec(
        "home",
        "عمّان دبي القاهرة الرياض بيروت تونس الدوحة جدة مسقط الرباط الإسكندرية أربيل".split(),
        ["أسكن في {v}.", "أعيش في {v} منذ ثلاث سنوات.", "نسكن في شقة صغيرة في {v}."],
        [
            "انتقلت إلى {v} الشهر الماضي.",
            "انتقلنا من {old} إلى {v} بسبب عمل زوجي.",
            "أسكن الآن في {v} بعد الانتقال.",
            "صرت أسكن في {v}.",
        ],
        ["أسكن في {v}."],
        ["أين أسكن؟", "في أي مدينة أعيش؟"],
        ["أين كنت أسكن قبل {cur}؟", "في أي مدينة كنت أعيش قبل الانتقال إلى {cur}؟"],
    ),
    SlotSpec(
        "employer",
        ["Acme", "Northwind", "Globex", "Contoso", "Initech", "Hooli", "Aramco", "Careem"],
        ["أعمل في شركة {v}.", "أعمل لدى {v} منذ سنتين."],
        [
            "تركت {old} وانضممت إلى {v}.",
            "بدأت عملاً جديداً في {v} هذا الأسبوع.",
            "أعمل الآن في {v}.",
            "انضممت إلى {v} الشهر الماضي.",
        ],
        ["أعمل في شركة {v}."],
        ["أين أعمل؟", "في أي شركة أعمل؟"],
        ["أين كنت أعمل قبل {cur}؟"],
    ),
    SlotSpec(
        "role",
        ["مهندس برمجيات", "مدير فريق", "محاسب", "محاسب أول", "مصمم", "مدير التصميم"],
        ["أعمل كمهندس برمجيات.", "وظيفتي هي {v}."],
        ["تمت ترقيتي إلى {v}.", "صرت {v} بعد الترقية.", "وظيفتي الجديدة هي {v}."],
        ["وظيفتي هي {v}."],
        ["ما هي وظيفتي؟", "ما هو مسماي الوظيفي؟"],
        ["ما كانت وظيفتي قبل أن أصبح {cur}؟"],
    ),
    SlotSpec(
        "phone",
        ["0791234567", "0797654321", "0501234567", "0509876543", "+962 79 555 0101"],
        ["رقم هاتفي {v}.", "رقم جوالي هو {v}."],
        ["رقمي الجديد هو {v}.", "غيرت رقم هاتفي، رقمي الجديد {v}."],
        ["رقم هاتفي {v}."],
        ["ما هو رقم هاتفي؟", "ما رقم جوالي؟"],
        ["ما كان رقم هاتفي القديم؟"],
    ),
    SlotSpec(
        "email",
        ["layla.h@example.com", "omar.s@example.org", "noor@mail.example", "yousef.k@example.net"],
        ["بريدي الإلكتروني {v}.", "بريدي الإلكتروني هو {v}."],
        ["بريدي الإلكتروني الجديد هو {v}.", "غيرت بريدي، الجديد هو {v}."],
        ["بريدي الإلكتروني هو {v}."],
        ["ما هو بريدي الإلكتروني؟"],
        ["ما كان بريدي الإلكتروني السابق؟"],
    ),
    SlotSpec(
        "pref:drink",
        ["الشاي", "القهوة"],
        ["أفضل الشاي على القهوة.", "أشرب الشاي كل صباح."],
        ["صرت أشرب القهوة كل صباح بدلاً من الشاي.", "أفضل القهوة الآن، تركت الشاي."],
        [],
        ["ماذا أشرب في الصباح؟", "هل أفضل الشاي أم القهوة؟"],
        ["ماذا كنت أشرب قبل أن أنتقل إلى {cur}؟"],
    ),
]
ORDERED_AR = {
    "role": [["مهندس برمجيات", "مدير فريق"], ["محاسب", "محاسب أول"], ["مصمم", "مدير التصميم"]],
    "pref:drink": [["الشاي", "القهوة"]],
}
# The first value of an Arabic role is said by a fixed sentence for "مهندس برمجيات".
AR_FIRST_FIXED = {"مهندس برمجيات": "أعمل كمهندس برمجيات."}

EN_DISTRACTORS = [
    "My brother Tom lives in {city}.",
    "My sister Anika works at {company}.",
    "My colleague Raj just moved to {city}.",
    "I'm allergic to peanuts.",
    "I play five-a-side football on Thursdays.",
    "My favourite band is Radiohead.",
    "I'm learning Spanish on my commute.",
    "We have a dog called Biscuit.",
    "We also adopted a cat named Miso last week.",
    "I usually go climbing on Sunday mornings.",
    "My mum's birthday is on the 14th of March.",
    "I'm training for a half marathon in October.",
    "Our team uses Jira for planning.",
    "I read mostly science fiction.",
]
AR_DISTRACTORS = [
    "أخي أحمد يسكن في {city}.",
    "أختي سارة تعمل في شركة {company}.",
    "عندي حساسية من الفول السوداني.",
    "أمارس السباحة كل يوم جمعة.",
    "عندي قطة اسمها لولو.",
    "أتعلم اللغة الإسبانية في أوقات فراغي.",
]
BOTH = {
    "en": (
        ["We have a dog called Biscuit.", "We also adopted a cat named Miso last week."],
        "What pets do I have?",
        ["Biscuit", "Miso"],
    ),
}


@dataclass
class User:
    name: str
    lang: str
    statements: list[tuple[datetime, int, str]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)


def chain_values(
    spec: SlotSpec, rng: random.Random, ordered: dict[str, list[list[str]]]
) -> list[str]:
    if spec.slot in ordered:
        return list(rng.choice(ordered[spec.slot]))
    n = 3 if rng.random() < 0.3 else 2
    return rng.sample(spec.values, n)


def build_user(i: int, lang: str, rng: random.Random) -> User:
    user = User(f"u{i:02d}", lang)
    specs = EN if lang == "en" else AR
    ordered = ORDERED if lang == "en" else ORDERED_AR
    start = datetime(2024, 1, 8, 9, 0, tzinfo=UTC) + timedelta(days=rng.randint(0, 60))
    chosen = rng.sample(specs, min(len(specs), 6 if lang == "en" else 5))
    arrival = 0
    for spec in chosen:
        values = chain_values(spec, rng, ordered)
        day = start + timedelta(days=rng.randint(0, 40), hours=rng.randint(0, 8))
        told: list[tuple[datetime, str]] = []
        for k, value in enumerate(values):
            if k == 0:
                fixed = AR_FIRST_FIXED.get(value) if lang == "ar" else None
                template = fixed or rng.choice([t for t in spec.first if "{v}" in t] or spec.first)
                if "{v}" not in template and not fixed:
                    template = spec.first[0]
            elif spec.plain and rng.random() < 0.2:
                template = rng.choice(spec.plain)
            else:
                template = rng.choice(spec.change)
            told.append((day, template.format(v=value, old=values[k - 1] if k else "")))
            day += timedelta(days=rng.randint(25, 120), hours=rng.randint(0, 6))
        order = list(range(len(told)))
        backdated = len(told) >= 2 and rng.random() < 0.2
        if backdated:  # the first value told last, with its own older date
            order = [*order[1:], order[0]]
        for k in order:
            arrival += 1
            when, text = told[k]
            user.statements.append((when, arrival, text))
        current, previous = values[-1], values[-2]
        user.questions.append(
            {
                "q": rng.choice(spec.current_q).format(cur=current),
                "kind": "current",
                "slot": spec.slot,
                "answer": [current],
                "stale": values[:-1],
                "backdated": backdated,
            }
        )
        user.questions.append(
            {
                "q": rng.choice(spec.history_q).format(cur=current),
                "kind": "history",
                "slot": spec.slot,
                "answer": [previous],
                "stale": [],
                "backdated": backdated,
            }
        )
    _distract(user, lang, rng, start, arrival)
    user.statements.sort(key=lambda s: s[1])
    return user


# Words passed on: another person's move or job, or text to transform, that must
# never become the person's own current value.
PASSED_ON = {
    "home": ["My boss wrote: 'I moved to {x}'", 'Proofread this please: "I live in {x} now."',
             'Karim texted me "We just moved to {x}!"'],
    "employer": ["My sister told me she joined {x}.", "Translate this: I started a new job at {x}.",
                 "Can you make this friendlier? I'm now working at {x}."],
}  # fmt: skip
CEASED = {"home": "I moved out of {x} ages ago.", "employer": "I left {x} a while back."}


def _passed_on(user: User, rng: random.Random, start: datetime, arrival: int) -> int:
    """A passed-on change of the person's home or employer, told last, and a
    cessation naming a value they left long ago: the current value stands."""
    for question in user.questions:
        slot = question["slot"]
        if question["kind"] != "current" or slot not in PASSED_ON:
            continue
        spec = next(s for s in EN if s.slot == slot)
        told = {*question["answer"], *question["stale"]}
        other = rng.choice([v for v in spec.values if v not in told])
        arrival += 1
        text = rng.choice(PASSED_ON[slot]).format(x=other)
        user.statements.append((start + timedelta(days=400), arrival, text))
        question["stale"] = [*question["stale"], other]
        if question["stale"][:1] and rng.random() < 0.5:
            arrival += 1
            ceased = CEASED[slot].format(x=question["stale"][0])
            user.statements.append((start + timedelta(days=401), arrival, ceased))
    return arrival


def _distract(user: User, lang: str, rng: random.Random, start: datetime, arrival: int) -> None:
    if lang == "en":
        arrival = _passed_on(user, rng, start, arrival)
    pool = EN_DISTRACTORS if lang == "en" else AR_DISTRACTORS
    specs = {s.slot: s for s in (EN if lang == "en" else AR)}
    own = {
        v
        for _, _, text in user.statements
        for v in [*specs["home"].values, *specs["employer"].values]
        if v in text
    }
    cities = [c for c in specs["home"].values if c not in own]
    companies = [c for c in specs["employer"].values if c not in own]
    for template in rng.sample(pool, 4 if lang == "en" else 3):
        city = rng.choice(cities)  # another person's home or employer, never one of the user's
        company = rng.choice(companies)
        arrival += 1
        when = start + timedelta(days=rng.randint(0, 300))
        user.statements.append((when, arrival, template.format(city=city, company=company)))
    if lang in BOTH and rng.random() < 0.5:
        texts, question, answers = BOTH[lang]
        for k, text in enumerate(texts):
            if text not in {s[2] for s in user.statements}:
                arrival += 1
                user.statements.append((start + timedelta(days=200 + 30 * k), arrival, text))
        user.questions.append(
            {
                "q": question,
                "kind": "both",
                "slot": "pet",
                "answer": answers,
                "stale": [],
                "backdated": False,
            }
        )


def generate(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    users = [build_user(i, "en" if i < 40 else "ar", rng) for i in range(60)]
    return [
        {
            "user": u.name,
            "lang": u.lang,
            "statements": [{"text": t, "at": w.isoformat()} for w, _, t in u.statements],
            "questions": u.questions,
        }
        for u in users
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    users = generate(args.seed)
    args.out.write_text("".join(json.dumps(u, ensure_ascii=False) + "\n" for u in users))
    chains = sum(1 for u in users for q in u["questions"] if q["kind"] == "current")
    print(f"{len(users)} users, {chains} update chains -> {args.out}")


if __name__ == "__main__":
    main()
