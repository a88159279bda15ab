"""The entity lane: names in the turn text, any case, script or length."""

from __future__ import annotations

from lanes.entity import entity_lane
from substrate import Settings, load_page_index
from substrate.index import EntityMatcher, matcher_for
from tests.conftest import PageWriter


def build(settings: Settings, write_page: PageWriter, pages: dict[str, str]) -> EntityMatcher:
    for slug, text in pages.items():
        write_page(slug, text)
    return matcher_for(load_page_index(settings.workspace))


def slugs(matcher: EntityMatcher, text: str) -> list[str]:
    return [c.slug for c in entity_lane(matcher, text)]


def test_title_and_aliases_match_case_insensitively_on_word_boundaries(
    settings: Settings, write_page: PageWriter
) -> None:
    matcher = build(
        settings,
        write_page,
        {
            "people/sam": "---\ntitle: Sam Rivera\naliases: [Sammy, S.R.]\n---\nx",
            "places/porto": "---\ntitle: Porto\n---\nx",
        },
    )
    assert slugs(matcher, "did SAMMY call?") == ["people/sam"]
    assert slugs(matcher, "lunch with sam rivera in porto") == ["people/sam", "places/porto"]
    assert slugs(matcher, "samples from portobello") == []
    (candidate,) = entity_lane(matcher, "I saw Sam Rivera")
    assert (candidate.lane, candidate.reason) == ("entity", "names 'sam rivera'")


def test_longer_names_rank_first_then_more_mentions(
    settings: Settings, write_page: PageWriter
) -> None:
    matcher = build(
        settings,
        write_page,
        {
            "a": "---\ntitle: New York Times\n---\nx",
            "b": "---\ntitle: York\n---\nx",
            "c": "---\ntitle: Tea\n---\nx",
        },
    )
    assert slugs(matcher, "tea, tea and the New York Times") == ["a", "c", "b"]


def test_non_latin_names_match(settings: Settings, write_page: PageWriter) -> None:
    matcher = build(
        settings,
        write_page,
        {
            "people/layla": "---\ntitle: ليلى\naliases: [Layla]\n---\nx",
            "places/koln": "---\ntitle: Köln\n---\nx",
        },
    )
    assert slugs(matcher, "متى ستزور ليلى القاهرة؟") == ["people/layla"]
    assert slugs(matcher, "KÖLN im Winter") == ["places/koln"]


def test_stopword_only_names_never_fire(settings: Settings, write_page: PageWriter) -> None:
    matcher = build(settings, write_page, {"the": "---\ntitle: The\naliases: [it]\n---\nx"})
    assert slugs(matcher, "it is the best") == []


def test_matcher_follows_page_changes_without_a_rebuild(
    settings: Settings, write_page: PageWriter
) -> None:
    first = build(settings, write_page, {"a": "---\ntitle: Alpha\naliases: [Al]\n---\nx"})
    index = first.source
    assert index is not None and matcher_for(index, first) is first
    write_page("b", "---\ntitle: Beta\n---\nx")
    write_page("a", "---\ntitle: Gamma\n---\nx")
    updated = matcher_for(load_page_index(settings.workspace), first)
    assert slugs(updated, "alpha al beta gamma") == ["a", "b"]
    assert slugs(updated, "alpha al") == []  # the old title and alias were withdrawn
    fresh = EntityMatcher.build(load_page_index(settings.workspace).entries.values())
    assert updated.names == fresh.names


def test_arabic_names_match_across_spelling_marks_and_clitics(
    settings: Settings, write_page: PageWriter
) -> None:
    matcher = build(
        settings,
        write_page,
        {
            "people/ahmad": "---\ntitle: أحمد\n---\nx",
            "places/cairo": "---\ntitle: القاهرة\n---\nx",
            "people/layla": "---\ntitle: ليلى\n---\nx",
        },
    )
    assert slugs(matcher, "اتصل احمد امس") == ["people/ahmad"]  # hamza left off
    assert slugs(matcher, "سافرت إلى القاهِرَة") == ["places/cairo"]  # vowel marks written
    assert slugs(matcher, "ذهبت مع وليلى") == ["people/layla"]  # "and Layla", final ي for ى
    assert slugs(matcher, "ليلة هادئة") == []  # "night" shares letters, not the name
