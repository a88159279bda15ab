from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, strategies as st

from substrate.intake import format_entry, parse_buffer, with_hints

AT = datetime(2026, 11, 29, 14, 3, tzinfo=UTC)


@given(st.lists(st.text(), min_size=1, max_size=4))
def test_any_texts_round_trip_through_the_file(texts: list[str]) -> None:
    content = "# Buffer\n\n" + "".join(format_entry(AT, t) for t in texts)
    assert [e.text for e in parse_buffer(content)] == texts


@given(st.text(alphabet=st.sampled_from("- [2020-01-01 00:00]x\n\r \t"), max_size=80))
def test_entry_shaped_text_never_becomes_a_second_entry(text: str) -> None:
    entries = parse_buffer(format_entry(AT, text))
    assert len(entries) == 1
    assert entries[0].text == text


def test_multiline_entry_is_written_indented() -> None:
    assert format_entry(AT, "one\n- [2020-01-01 00:00] two\n\nthree") == (
        "- [2026-11-29 14:03] one\n  - [2020-01-01 00:00] two\n  \n  three\n"
    )


def test_legacy_unindented_continuation_lines_continue_the_entry() -> None:
    legacy = (
        "# Buffer\n"
        "- [2026-01-01 09:00] first fact\n"
        "continued without indent\n"
        "\n"
        "- [2026-01-01 09:05] second fact\n"
        "\n\n"
    )
    entries = parse_buffer(legacy)
    assert [e.text for e in entries] == ["first fact\ncontinued without indent", "second fact"]
    assert entries[1].at == datetime(2026, 1, 1, 9, 5, tzinfo=UTC)


def test_invalid_timestamp_is_not_an_entry_start() -> None:
    entries = parse_buffer("- [2026-01-01 09:00] ok\n- [2026-13-01 99:99] not a date\n")
    assert [e.text for e in entries] == ["ok\n- [2026-13-01 99:99] not a date"]


def test_ids_are_stable_and_distinct_for_duplicates() -> None:
    content = format_entry(AT, "same") + format_entry(AT, "same") + format_entry(AT, "other")
    ids = [e.id for e in parse_buffer(content)]
    assert ids[1] == ids[0] + "-2"
    assert len(set(ids)) == 3
    assert [e.id for e in parse_buffer(content)] == ids


def test_hints_are_the_entry_wikilinks() -> None:
    text = with_hints("Alice moved to [[places/oslo]]", ["people/alice", "places/oslo"])
    assert text == "Alice moved to [[places/oslo]] [[people/alice]]"
    (entry,) = parse_buffer(format_entry(AT, text))
    assert entry.hints == ["places/oslo", "people/alice"]
