"""Dates from nowhere: a fact dated before 1900 or more than a day ahead is
refused with its field named, and a timestamp always has a four-digit year so
the buffer's reader can never fuse two entries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from service.cli import cli
from substrate import InvalidInputError, Settings, read_buffer
from substrate.intake import parse_at, remember
from substrate.intake.buffer import format_entry, parse_buffer


@pytest.mark.parametrize("at", ["2099-01-01", "0001-01-01", "1899-12-31T23:59"])
def test_remember_at_outside_1900_to_tomorrow_is_refused_naming_the_field(
    settings: Settings, at: str
) -> None:
    result = CliRunner().invoke(
        cli,
        ["remember", "I moved to Leeds.", "--at", at, "--workspace", str(settings.workspace.root)],
    )
    assert result.exit_code == 1
    assert "at: " in result.output and "is outside 1900-01-01" in result.output
    assert read_buffer(settings) == []


def test_the_library_refuses_a_future_date_too(settings: Settings) -> None:
    with pytest.raises(InvalidInputError, match="at: 2099"):
        remember(settings, "I moved to Leeds.", now=datetime(2099, 1, 1, tzinfo=UTC))


def test_a_plausible_backdate_is_kept() -> None:
    assert parse_at("1999-05-08T13:56").year == 1999


def test_a_small_year_renders_four_digits_and_never_fuses_two_entries() -> None:
    old = datetime(1, 1, 1, tzinfo=UTC)
    text = format_entry(old, "first fact") + format_entry(
        datetime(2024, 1, 1, tzinfo=UTC), "second"
    )
    assert text.startswith("- [0001-01-01 00:00] first fact")
    assert [e.text for e in parse_buffer(text)] == ["first fact", "second"]
