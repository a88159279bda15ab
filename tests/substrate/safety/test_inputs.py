from __future__ import annotations

import pytest

from substrate import InvalidInputError, TooLargeError
from substrate.safety import checked_text, printable, tail_within


def test_text_within_its_limit_passes_unchanged() -> None:
    assert checked_text("héllo", "text", 6, "fact_bytes") == "héllo"


def test_text_over_its_limit_names_the_field_and_the_key() -> None:
    with pytest.raises(TooLargeError) as info:
        checked_text("héllo!", "text", 6, "fact_bytes")
    assert info.value.message == ("text is 7 bytes, over the limit of 6 (memory.limits.fact_bytes)")
    assert info.value.http_status == 413


def test_a_lone_surrogate_is_refused_with_where_it_is() -> None:
    with pytest.raises(InvalidInputError) as info:
        checked_text("ab\ud800c", "message", 100, "message_bytes")
    assert info.value.message == "message is not valid UTF-8 text (a lone surrogate at character 2)"


def test_undecodable_file_name_bytes_print_as_escapes() -> None:
    name = b"caf\xe9.md".decode("utf-8", "surrogateescape")
    assert printable(name) == "caf\\xe9.md"
    assert printable("café.md") == "café.md"


def test_the_tail_of_a_long_text_is_cut_at_a_character() -> None:
    assert tail_within("abc", 10) == "abc"
    assert tail_within("xxéé", 3) == "é"  # the first byte of the cut é is dropped
    assert tail_within("a" * 100 + " where is Porto?", 16) == " where is Porto?"
