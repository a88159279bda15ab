from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest

from substrate.errors import PageParseError
from substrate.pages import (
    Link,
    parse_origin_date,
    parse_page,
    split_frontmatter,
    with_default_field,
)
from substrate.pages.page_file import strip_fences

MTIME = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)


def page(text: str, slug: str = "topic/page"):
    return parse_page(slug, text.encode(), MTIME)


def test_title_prefers_frontmatter_then_heading_then_slug_tail() -> None:
    assert page("---\ntitle: From FM\n---\n# Heading\n").title == "From FM"
    assert page("intro\n\n# The Heading\nbody").title == "The Heading"
    assert page("```\n# not a heading\n```\nplain body").title == "page"
    assert page("## only a level-two heading").title == "page"


def test_links_come_from_links_edges_and_every_wikilink_form() -> None:
    p = page(
        "---\nlinks: [a, b]\nedges:\n  - {to: c, kind: part_of}\n  - {kind: missing_to}\n---\n"
        "See [[d]], [[e|label]], [[f#Section]] and [[g#h|both]].\n"
    )
    assert p.links == (
        Link("a", "links"),
        Link("b", "links"),
        Link("c", "edges"),
        Link("d", "wikilink"),
        Link("e", "wikilink"),
        Link("f", "wikilink"),
        Link("g", "wikilink"),
    )


def test_wikilinks_inside_code_are_not_links() -> None:
    p = page("Use `[[inline]]` or\n```\n[[fenced]]\n```\nbut [[real]] counts.")
    assert [link.target for link in p.links] == ["real"]


def test_a_single_string_links_value_is_one_link() -> None:
    assert page("---\nlinks: solo\n---\n").links == (Link("solo", "links"),)


def test_aliases_tags_core_and_provenance() -> None:
    p = page(
        "---\naliases: [Ali, علي]\ntags: work\ncore: true\nsource: import:chatgpt\n"
        "origin_date: 2021-06-01\nsummary: short\n---\nbody"
    )
    assert p.aliases == ("Ali", "علي")
    assert p.tags == ("work",)
    assert p.core is True
    assert p.source == "import:chatgpt"
    assert p.summary == "short"
    assert p.origin_date == "2021-06-01"
    assert p.fresh_at == datetime(2021, 6, 1, tzinfo=UTC)


def test_core_must_be_literally_true() -> None:
    assert page("---\ncore: 'yes'\n---\n").core is False


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1969-07-20", datetime(1969, 7, 20, tzinfo=UTC)),
        ("'1969-07-20T20:17:40'", datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC)),
        ("'2024-01-01T10:00:00+02:00'", datetime(2024, 1, 1, 8, 0, tzinfo=UTC)),
        ("2024-01-01T10:00:00Z", datetime(2024, 1, 1, 10, 0, tzinfo=UTC)),
        ("2024-01-01 10:00:00", datetime(2024, 1, 1, 10, 0, tzinfo=UTC)),
        ("'0044-03-15'", datetime(44, 3, 15, tzinfo=UTC)),
    ],
)
def test_origin_date_forms_give_fresh_at(raw: str, expected: datetime) -> None:
    assert page(f"---\norigin_date: {raw}\n---\n").fresh_at == expected


@pytest.mark.parametrize("raw", ["not a date", "2024-13-45", "12345", "''", "[2024]"])
def test_unparseable_origin_date_falls_back_to_mtime(raw: str) -> None:
    assert page(f"---\norigin_date: {raw}\n---\n").fresh_at == MTIME


def test_absent_origin_date_falls_back_to_mtime() -> None:
    p = page("no frontmatter at all")
    assert p.fresh_at == MTIME
    assert p.origin_date is None


def test_parse_origin_date_rejects_non_strings() -> None:
    assert parse_origin_date(12345) is None
    assert parse_origin_date(None) is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"---\ntitle: [unclosed\n---\nbody", "bad YAML frontmatter"),
        (b"---\n- a\n- b\n---\nbody", "frontmatter is not a mapping (got a YAML list)"),
        (b"---\njust words\n---\nbody", "frontmatter is not a mapping (got a YAML str)"),
        (b"\xff\xfe bad bytes", "not UTF-8"),
    ],
)
def test_parse_failures_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(PageParseError) as info:
        parse_page("x", data, MTIME)
    assert reason in info.value.message


def test_empty_frontmatter_and_bom_are_accepted() -> None:
    p = parse_page("x", "\ufeff---\n---\n# Title\n".encode(), MTIME)
    assert p.title == "Title"


def test_content_hash_changes_with_any_byte() -> None:
    assert page("a").content_hash != page("b").content_hash


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Body only.", '---\nsource: "import:x"\n---\nBody only.'),
        ("---\ntitle: A\n---\nBody", '---\ntitle: A\nsource: "import:x"\n---\nBody'),
        ("---\n---\nBody", '---\nsource: "import:x"\n---\nBody'),
        ("\n---\ntitle: A\n---\nB\n---\nC", '\n---\ntitle: A\nsource: "import:x"\n---\nB\n---\nC'),
        ("---\nnot closed\n", '---\nsource: "import:x"\n---\n---\nnot closed\n'),
    ],
)
def test_default_field_is_inserted_leaving_every_other_byte(text: str, expected: str) -> None:
    out = with_default_field(text, "source", "import:x")
    assert out == expected
    assert split_frontmatter(out)[0]["source"] == "import:x"


def test_default_field_keeps_a_value_already_set() -> None:
    text = "---\nsource: import:notion\n---\nBody"
    assert with_default_field(text, "source", "import:x") == text


def test_default_field_refuses_bad_yaml() -> None:
    with pytest.raises(PageParseError):
        with_default_field("---\ntitle: [\n---\nB", "source", "import:x")


OLD_FENCE = re.compile(r"^(```|~~~).*?^\1[^\S\n]*$", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("seed", range(5))
def test_fence_stripping_matches_the_regex_it_replaced(seed: int) -> None:
    rng = random.Random(seed)
    parts = ["```", "~~~", "```py", "~~~ ", "``` ", "text [[a]]", "", "  ```", "```x", "```\r"]
    for _ in range(2000):
        text = "\n".join(rng.choice(parts) for _ in range(rng.randint(0, 10)))
        assert strip_fences(text) == OLD_FENCE.sub("", text)


def test_a_page_of_unclosed_fences_parses_in_one_pass() -> None:
    """The regex scanned to the end once per unclosed fence: minutes for this page."""
    body = "```x\n[[somewhere]]\n" * 20_000
    page = parse_page("p", body.encode(), datetime(2026, 1, 1, tzinfo=UTC))
    assert page.links[0].target == "somewhere"
