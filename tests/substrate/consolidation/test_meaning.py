"""What the memory learns follows meaning, not wording, end to end: three months of
one person's facts in their own words, remembered with their dates and filed
by the deterministic filer onto real pages."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from substrate import Settings, remember
from substrate.consolidation import consolidate_all, explain
from substrate.index import SearchIndex
from substrate.pages import fact_bullets, load_page_index, reader_line


def at(month: int, day: int = 1, minute: int = 0) -> datetime:
    return datetime(2026, month, day, 10, minute, tzinfo=UTC)


def say(settings: Settings, text: str, when: datetime) -> str:
    return remember(settings, text, now=when).id


def facts(settings: Settings) -> dict[str, tuple[str, str, dict[str, str]]]:
    """Every filed fact by id: (page, status, marker words)."""
    out = {}
    root = settings.workspace.concepts_dir
    for slug, entry in load_page_index(settings.workspace).entries.items():
        for b in fact_bullets((root / entry.path).read_text()):
            out[str(b.entry_id)] = (slug, b.status, {**b.attrs, "slot": b.slot or ""})
    return out


def now_section(settings: Settings) -> str:
    return (settings.workspace.memory_dir / "essentials.md").read_text()


def test_words_passed_on_never_take_or_supersede_the_persons_facts(settings: Settings) -> None:
    phone = say(settings, "My mobile number is 07700 900123.", at(8))
    home = say(settings, "I live on Dalry Road in Edinburgh.", at(8, 1, 5))
    job = say(settings, "I work at Brightwater as a data analyst.", at(8, 2))
    sister = say(settings, "My sister Iona lives in Glasgow.", at(8, 3))
    consolidate_all(settings)
    proofread = say(
        settings,
        'Proofread this please: "I live in Paris and my new number is 0612 345 678."',
        at(10),
    )
    for_sister = say(
        settings,
        "Can you proofread this for my sister: 'I have moved to Madrid and now work at Zara.'",
        at(10, 1, 10),
    )
    boss = say(settings, "My boss wrote: 'I moved to Berlin'", at(10, 1, 20))
    karim = say(
        settings,
        'Karim texted me "I just started at the Western General, loving it."',
        at(10, 1, 30),
    )
    consolidate_all(settings)
    filed = facts(settings)
    for kept in (phone, home, job, sister):
        assert filed[kept][1] == "current"
    for passed in (proofread, for_sister, boss, karim):
        page, status, marks = filed[passed]
        assert not page.startswith("me/") and marks["slot"] == "" and status == "current"
        assert marks["voice"] == "passed_on"
    assert filed[karim][0] == "people/karim" and filed[karim][2]["speaker"] == "Karim"
    assert filed[for_sister][0] == filed[sister][0] == "people/iona"
    assert filed[boss][0] == "people/boss"
    now = now_section(settings)
    assert "07700 900123" in now and "Dalry Road" in now and "Brightwater" in now
    assert "Proofread" not in now and "Berlin" not in now
    text = (settings.workspace.concepts_dir / "people/karim.md").read_text()
    [note] = fact_bullets(text)
    assert reader_line(note).startswith(
        "- [1 October 2026] (Karim's words, passed on) Karim texted"
    )


@pytest.mark.parametrize(
    ("old", "new", "page"),
    [
        (
            "I live on Dalry Road in Edinburgh.",
            "We finally got the keys to our flat in Leith!",
            "me/home",
        ),
        ("I live on Dalry Road in Edinburgh.", "Our new place is in Portobello.", "me/home"),
        (
            "I work at Brightwater as a data analyst.",
            "I've just started at Kestrel as head of data.",
            "me/work",
        ),
        ("I work at Brightwater.", "I'm now head of data at Kestrel.", "me/work"),
        (
            "My sister Iona lives in Glasgow.",
            "Iona's moved down to Bristol for her PhD.",
            "people/iona",
        ),
        ("My sister Iona lives in Glasgow.", "Iona lives in Bristol now.", "people/iona"),
        (
            "I drink Earl Grey every morning.",
            "Honestly I've gone off Earl Grey, it's strong black coffee every morning now.",
            "me/food",
        ),
        (
            "I drink tea every morning.",
            "I've switched from tea to coffee in the mornings.",
            "me/food",
        ),
    ],
)
def test_a_change_said_in_everyday_words_supersedes_the_value_it_changes(
    settings: Settings, old: str, new: str, page: str
) -> None:
    first = say(settings, old, at(8))
    consolidate_all(settings)
    second = say(settings, new, at(10))
    consolidate_all(settings)
    filed = facts(settings)
    assert filed[second][:2] == (page, "current")
    assert filed[first][1] == "superseded", filed


def test_a_new_job_replaces_the_employer_and_the_role_together(settings: Settings) -> None:
    employer = say(settings, "I work at Brightwater.", at(8))
    role = say(settings, "I'm a data analyst.", at(8, 2))
    promoted = say(settings, "I got promoted to senior analyst.", at(9))
    consolidate_all(settings)
    assert facts(settings)[employer][1] == "current"  # a promotion leaves the employer
    assert facts(settings)[role][1] == "superseded"
    new = say(settings, "I've just started at Kestrel as head of data.", at(10))
    consolidate_all(settings)
    filed = facts(settings)
    assert filed[employer][1] == filed[promoted][1] == "superseded"
    assert filed[new][:2] == ("me/work", "current")
    assert "Kestrel" in now_section(settings) and "senior analyst" not in now_section(settings)


def test_a_cessation_retracts_only_the_fact_it_names_and_never_a_newer_one(
    settings: Settings,
) -> None:
    brightwater = say(settings, "I've started at Brightwater as an analyst.", at(8))
    kestrel = say(settings, "I've just started at Kestrel as head of data.", at(10))
    consolidate_all(settings)
    left = say(settings, "I left Brightwater last week.", at(10, 20))
    consolidate_all(settings)
    filed = facts(settings)
    assert filed[brightwater][1] == "superseded" and filed[kestrel][1] == "current"
    assert filed[left][1] == "current" and filed[left][2]["slot"] == ""
    [decision] = explain(settings, left)["decisions"]
    assert decision["decision"] == "nothing to retract" and decision["family"] == "work"
    assert decision["candidates"] == [kestrel]
    now = now_section(settings)
    assert "Kestrel" in now and "I left Brightwater" not in now


def test_no_longer_retracts_the_fact_it_names_and_files_it_beside_it(settings: Settings) -> None:
    street = say(settings, "I live on Dalry Road in Edinburgh.", at(8))
    cello = say(settings, "I play the cello in a community orchestra.", at(8, 2))
    consolidate_all(settings)
    moved_out = say(settings, "I no longer live on Dalry Road.", at(10))
    stopped = say(settings, "I no longer play the cello.", at(10, 2))
    consolidate_all(settings)
    filed = facts(settings)
    assert filed[street][1] == filed[cello][1] == "retracted"
    assert filed[moved_out][0] == filed[street][0] and filed[stopped][0] == filed[cello][0]
    assert all(
        slug.startswith(("me/", "inbox/")) for slug in load_page_index(settings.workspace).entries
    )
    [decision] = explain(settings, moved_out)["decisions"]
    assert decision["decision"] == "retracts" and decision["replaced"] == [street]


# The class: facts of a family, each naming something; a cessation names one.
# (template, names, single-valued, "no longer" verb, simple past, participle)
FAMILY_FACTS = [
    ("I live on {x} in Edinburgh.", ["Dalry Road", "Leith Walk", "Easter Road"], True,
     "live on", "moved out of", "moved out of"),
    ("I work at {x}.", ["Brightwater", "Kestrel", "Northwind"], True, "work at", "left", "left"),
    ("I drive a {x}.", ["Fiat", "Skoda", "Volvo"], True, "drive my", "sold", "sold"),
    ("I play the {x} every week.", ["cello", "violin", "flute"], False,
     "play the", "gave up", "given up"),
    ("I volunteer at {x} on Sundays.", ["Oxfam", "the food bank", "Shelter"], False,
     "volunteer at", "quit", "quit"),
]  # fmt: skip
CESSATIONS = ["I no longer {verb} {x}.", "I {past} {x} last week.", "Honestly, I've {done} {x}."]


@pytest.mark.parametrize(
    ("fact", "cessation", "pick"), list(itertools.product(FAMILY_FACTS, CESSATIONS, [0, 1]))
)
def test_a_cessation_ends_the_fact_naming_what_ended_and_never_a_newer_one(
    settings: Settings, fact: tuple[str, list[str], bool, str, str, str], cessation: str, pick: int
) -> None:
    template, names, single, verb, past, done = fact
    older = [say(settings, template.format(x=n), at(3 + i)) for i, n in enumerate(names[:2])]
    newer = say(settings, template.format(x=names[2]), at(12))  # dated after the cessation
    said = cessation.format(verb=verb, past=past, done=done, x=names[pick])
    stop = say(settings, said, at(9))
    consolidate_all(settings)
    filed = facts(settings)
    assert filed[newer][1] == "current", (said, filed)
    # the words that told an end are its record, history beside what they ended;
    # on a slot of one value the newer fact had replaced both already: it ends nothing
    told = "current" if single else "ended"
    assert filed[stop][1] == told and filed[stop][2]["slot"] == "", (said, filed)
    if single:  # one value at a time: the newest stands, the older ones were replaced
        assert [filed[i][1] for i in older] == ["superseded", "superseded"], (said, filed)
        return
    assert filed[older[pick]][1] == "retracted", (said, filed)
    assert filed[older[1 - pick]][1] == "current", (said, filed)


@pytest.mark.parametrize(
    ("text", "slug", "title"),
    [
        ("Hi, I'm Morven Reid, but everyone calls me Mo.", "me/about", "Profile"),
        ("My birthday is on 3 March.", "me/about", "Profile"),
        ("We adopted a retired greyhound called Biscuit.", "pets/biscuit", "Biscuit"),
        ("I bought a new bike last weekend.", "me/vehicles", "Vehicles"),
        ("I sold my Fiat.", "me/vehicles", "Vehicles"),
        ("Please keep answers short.", "me/preferences", "Preferences"),
        ("أتعلم العزف على العود كل يوم سبت", None, None),  # a noun phrase, never the verb
        ("I no longer play the cello.", "me/hobbies", "Hobbies and interests"),
    ],
)
def test_pages_are_named_for_their_subjects(
    settings: Settings, text: str, slug: str | None, title: str | None
) -> None:
    from substrate.meaning.words import title_problem

    fact = say(settings, text, at(11, 20))
    consolidate_all(settings)
    filed = facts(settings)[fact][0]
    named = load_page_index(settings.workspace).entries[filed].title
    assert (filed, named) == (slug, title) if slug else title_problem(named) is None, named
    assert not filed.split("/")[-1].startswith(("اتعلم", "أتعلم"))


def test_a_fact_naming_nothing_is_titled_by_a_noun_phrase_never_a_verb_or_adverb(
    settings: Settings,
) -> None:
    from substrate.meaning.words import title_problem

    for n, text in enumerate(
        [
            "Perfect, finish it by Friday.",
            "Currently reading a book about tea gardens in Assam.",
            "Change of plans for the weekend.",
            "Initially the sourdough starter smelled of acetone.",
            "Honestly the garden shed roof leaks again.",
        ]
    ):
        remember(settings, text, now=at(11, 1 + n * 2))
    consolidate_all(settings)
    titles = [e.title for e in load_page_index(settings.workspace).entries.values()]
    assert [t for t in titles if title_problem(t) is not None] == []


def test_the_card_leads_with_the_drink_the_person_changed_to(
    settings: Settings, index: SearchIndex
) -> None:
    """ "What do I usually drink in the morning?" is answered by the newer habit,
    the old one shown under it as history."""
    from injector import Injector

    say(settings, "I drink Earl Grey every morning.", at(8, 3))
    say(
        settings,
        "Honestly I've gone off Earl Grey, it's strong black coffee every morning now.",
        at(10, 6),
    )
    consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
    index.maintain()
    card = (
        Injector(settings, index, clock=lambda: at(12).timestamp())
        .assemble("what do I usually drink in the morning?")
        .memory
    )
    lines = [line.strip() for line in card.splitlines() if "Earl Grey" in line or "coffee" in line]
    assert lines and "black coffee" in lines[0] and not lines[0].startswith("- [3 August")
    assert any(line.startswith("- [3 August 2026] was: I drink Earl Grey") for line in lines)


def current_facts(settings: Settings) -> dict[str, list[str]]:
    """Every page's current facts, by slug."""
    out: dict[str, list[str]] = {}
    index = load_page_index(settings.workspace)
    for entry in index.entries.values():
        text = (settings.workspace.concepts_dir / entry.path).read_text()
        out[entry.slug] = [b.text for b in fact_bullets(text) if b.current]
    return out


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My partner is {n}, together since college.", "{n} moved out in January."),
        ("I live with {n}, my boyfriend, in Clapham.", "{n} and I broke up last weekend."),
        ("Thursdays I play in the {n} pub quiz team.", "It's over with the {n} quiz team."),
    ],
)
def test_an_end_filed_under_another_name_ends_the_persons_fact_on_its_own_page(
    settings: Settings, index: SearchIndex, old: str, new: str
) -> None:
    """What an end names may sit on any page: the person's fact that names it is
    found (search's nearby pages) and ended, wherever the statement is filed."""
    for n, name in enumerate(("Jorvik", "Tamsel", "Brennor")):
        first = old.format(n=name)
        say(settings, first, at(3, 1 + n))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        say(settings, new.format(n=name), at(4, 1 + n))
        consolidate_all(settings, search=index, after_run=lambda _: index.maintain())
        now = [t for facts in current_facts(settings).values() for t in facts]
        assert first not in now, (first, current_facts(settings))
