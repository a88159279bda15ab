from __future__ import annotations

from pathlib import Path

import pytest

from substrate.errors import InvalidInputError
from substrate.pages import path_for_slug, slug_problem, validate_slug


@pytest.mark.parametrize(
    "slug", ["alice", "people/alice", "projects/2024/q1-launch", "علي", "日本/東京"]
)
def test_safe_slugs_pass(slug: str) -> None:
    assert validate_slug(slug) == slug


@pytest.mark.parametrize(
    ("slug", "problem"),
    [
        ("", "slug is empty"),
        ("../etc/passwd", "slug contains a '..' segment"),
        ("a/../b", "slug contains a '..' segment"),
        ("/abs", "slug is an absolute path"),
        ("a\\b", "slug contains a backslash"),
        ("a\x00b", "slug contains control character U+0000"),
        ("a\u202eb", "slug contains control character U+202E"),
        ("a//b", "slug has an empty path segment"),
        ("a/.hidden", "slug segment '.hidden' is hidden (starts with '.')"),
        ("x" * 201, "slug segment is longer than 200 bytes"),
    ],
)
def test_unsafe_slugs_say_why(slug: str, problem: str) -> None:
    assert slug_problem(slug) == problem
    with pytest.raises(InvalidInputError, match="bad slug"):
        validate_slug(slug)


def test_path_for_slug_stays_under_concepts(tmp_path: Path) -> None:
    assert path_for_slug(tmp_path, "a/b") == tmp_path / "a" / "b.md"
