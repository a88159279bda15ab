"""Staging folders and manifests: what each lists, and how broken entries surface."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest import DirectorySource, ManifestSource
from ingest.sources import TooLargeError
from substrate import InvalidInputError


def test_directory_lists_md_files_with_slugs_relative_to_the_folder(tmp_path: Path) -> None:
    (tmp_path / "people").mkdir()
    (tmp_path / "people" / "sam.md").write_text("Sam")
    (tmp_path / "top.md").write_text("Top")
    (tmp_path / "notes.txt").write_text("not a page")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("hidden folder")
    (tmp_path / ".draft.md").write_text("hidden file")
    pages = DirectorySource(tmp_path).pages()
    assert [(p.slug, p.where) for p in pages] == [
        ("top", "top.md"),
        ("people/sam", "people/sam.md"),
    ]
    assert pages[1].read is not None and pages[1].read(100) == b"Sam"


def test_directory_reader_refuses_a_file_over_the_cap_without_reading_it(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"x" * 2048)
    (page,) = DirectorySource(tmp_path).pages()
    assert page.read is not None
    with pytest.raises(TooLargeError, match="2048 bytes, over the cap of 1024"):
        page.read(1024)


def test_missing_folder_fails_the_whole_run(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="not a folder"):
        DirectorySource(tmp_path / "nope").pages()


def test_manifest_entries_with_content_and_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "b.md").write_text("from a file")
    manifest = tmp_path / "m.json"
    manifest.write_text(
        json.dumps(
            {"pages": [{"slug": "a", "content": "inline"}, {"slug": "b", "path": "pages/b.md"}]}
        )
    )
    pages = ManifestSource.from_file(manifest).pages()
    assert [p.slug for p in pages] == ["a", "b"]
    assert [p.read(100) for p in pages if p.read] == [b"inline", b"from a file"]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("just a string", "not an object"),
        ({"content": "x"}, 'string "slug"'),
        ({"slug": "a"}, 'exactly one of "content" or "path"'),
        ({"slug": "a", "content": "x", "path": "y"}, 'exactly one of "content" or "path"'),
        ({"slug": "a", "content": 3}, '"content" must be a string'),
        ({"slug": "a", "content": "x", "tags": []}, "unknown keys: tags"),
    ],
)
def test_a_broken_manifest_entry_is_that_entrys_problem(entry: object, problem: str) -> None:
    doc = {"pages": [entry, {"slug": "fine", "content": "ok"}]}
    broken, fine = ManifestSource(json.dumps(doc), Path("."), "m.json").pages()
    assert broken.problem is not None and problem in broken.problem
    assert broken.where == "m.json: pages[0]"
    assert fine.problem is None


@pytest.mark.parametrize(
    ("text", "message"),
    [("{not json", "not valid JSON"), ('{"pages": {}}', '"pages" list'), ("[]", '"pages" list')],
)
def test_an_unreadable_manifest_fails_the_whole_run(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        ManifestSource(text, Path("."), "stdin").pages()


def test_missing_manifest_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such manifest"):
        ManifestSource.from_file(tmp_path / "missing.json")
