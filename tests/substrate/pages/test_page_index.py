from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from substrate import LivePageIndex, Workspace, load_page_index, write_atomic
from substrate.errors import InvalidInputError
from substrate.pages import entry_json, path_for_slug
from substrate.pages.page_file import MAX_PAGE_FILE_BYTES
from substrate.pages.page_index import CACHE_VERSION
from tests.conftest import PageWriter


def test_nested_pages_get_path_slugs(workspace: Workspace, write_page: PageWriter) -> None:
    write_page("people/alice", "# Alice")
    write_page("projects/2024/launch", "# Launch")
    index = load_page_index(workspace)
    assert sorted(index.entries) == ["people/alice", "projects/2024/launch"]
    assert index.get("people/alice").path == "people/alice.md"


def test_hidden_and_non_markdown_files_are_ignored(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("visible", "x")
    (workspace.concepts_dir / ".hidden.md").write_text("x")
    (workspace.concepts_dir / ".git").mkdir()
    (workspace.concepts_dir / ".git" / "inside.md").write_text("x")
    (workspace.concepts_dir / "notes.txt").write_text("x")
    assert list(load_page_index(workspace).entries) == ["visible"]


def test_bad_slug_is_a_parse_failure(workspace: Workspace) -> None:
    (workspace.concepts_dir / "bad\\name.md").write_text("x")
    (workspace.concepts_dir / "tab\tname.md").write_text("x")
    failures = {f.path: f.error for f in load_page_index(workspace).parse_failures}
    assert failures["bad\\name.md"] == "bad slug: slug contains a backslash"
    assert failures["tab\tname.md"] == "bad slug: slug contains control character U+0009"


def test_dangling_links_name_source_target_and_via(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page(
        "a", "---\nlinks: [b, missing-1]\nedges: [{to: missing-2}]\n---\n[[missing-3]] [[b]]"
    )
    write_page("b", "back to [[a]]")
    dangling = {(d.source, d.target, d.via) for d in load_page_index(workspace).dangling_links}
    assert dangling == {
        ("a", "missing-1", "links"),
        ("a", "missing-2", "edges"),
        ("a", "missing-3", "wikilink"),
    }


def test_link_to_unparseable_page_is_not_dangling(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "[[broken]]")
    write_page("broken", "---\n: : :\n---\n")
    index = load_page_index(workspace)
    assert [f.slug for f in index.parse_failures] == ["broken"]
    assert index.dangling_links == ()


def test_unchanged_files_are_not_reread(workspace: Workspace, write_page: PageWriter) -> None:
    path = write_page("a", "---\ntitle: Original\n---\n", mtime=1_700_000_000)
    assert load_page_index(workspace).get("a").title == "Original"
    # Same size and mtime: the cache answers and the new bytes are not read.
    path.write_text("---\ntitle: Replaced\n---\n")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert load_page_index(workspace).get("a").title == "Original"
    # A new mtime is a change.
    os.utime(path, (1_700_000_100, 1_700_000_100))
    assert load_page_index(workspace).get("a").title == "Replaced"


def test_removed_and_added_pages_are_picked_up(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "x")
    load_page_index(workspace)
    (workspace.concepts_dir / "a.md").unlink()
    write_page("b", "y")
    assert list(load_page_index(workspace).entries) == ["b"]


def test_cached_index_equals_fresh_scan(workspace: Workspace, write_page: PageWriter) -> None:
    write_page(
        "a", "---\ntitle: A\naliases: [x]\norigin_date: 1950-01-01\nlinks: [b]\n---\n[[c|see]]"
    )
    write_page("bad", "---\n[\n---\n")
    first = load_page_index(workspace)
    second = load_page_index(workspace)
    assert second == first
    workspace.page_index_path.unlink()
    assert load_page_index(workspace) == first


def test_corrupt_cache_means_full_rescan(workspace: Workspace, write_page: PageWriter) -> None:
    write_page("a", "# A")
    load_page_index(workspace)
    workspace.page_index_path.write_text("{not json")
    assert load_page_index(workspace).get("a").title == "A"
    assert json.loads(workspace.page_index_path.read_text())["version"] == CACHE_VERSION


def test_entry_json_has_the_documented_keys(workspace: Workspace, write_page: PageWriter) -> None:
    write_page("a", "---\norigin_date: 2020-02-02T10:00:00+01:00\nsource: import:x\n---\n", mtime=0)
    row = entry_json(load_page_index(workspace).get("a"))
    assert set(row) == {
        "slug",
        "title",
        "aliases",
        "links",
        "source",
        "fresh_at",
        "modified_at",
        "content_hash",
        "quarantine",
    }
    assert row["fresh_at"] == "2020-02-02T09:00:00Z"
    assert row["modified_at"] == "1970-01-01T00:00:00Z"


def test_missing_concepts_folder_is_an_empty_index(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    assert len(load_page_index(Workspace(tmp_path))) == 0


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_live_index_is_reused_while_nothing_changed(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "---\ntitle: A\n---\n")
    live = LivePageIndex(workspace, max_age_s=60, clock=_Clock())
    assert live.current() is live.current()


def test_live_index_sees_pages_written_by_rename_and_removed(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("people/alice", "---\ntitle: Alice\n---\n")
    live = LivePageIndex(workspace, max_age_s=60, clock=_Clock())
    assert list(live.current().entries) == ["people/alice"]
    write_atomic(workspace.concepts_dir / "people" / "bob.md", "---\ntitle: Bob\n---\n")
    assert sorted(live.current().entries) == ["people/alice", "people/bob"]
    write_atomic(workspace.concepts_dir / "people" / "alice.md", "---\ntitle: Alicia\n---\n")
    assert live.current().get("people/alice").title == "Alicia"
    (workspace.concepts_dir / "people" / "bob.md").unlink()
    assert list(live.current().entries) == ["people/alice"]
    write_page("new/folder/page", "x")
    assert "new/folder/page" in live.current().entries


def test_live_index_catches_in_place_edits_at_its_max_age(
    workspace: Workspace, write_page: PageWriter
) -> None:
    path = write_page("a", "---\ntitle: Before\n---\n", mtime=1_000_000)
    clock = _Clock()
    live = LivePageIndex(workspace, max_age_s=5, clock=clock)
    assert live.current().get("a").title == "Before"
    with open(path, "w", encoding="utf-8") as fh:  # rewrites in place: the folder is untouched
        fh.write("---\ntitle: After\n---\n")
    clock.now = 4.9
    assert live.current().get("a").title == "Before"
    clock.now = 5.0
    assert live.current().get("a").title == "After"


def test_live_index_relisting_a_folder_keeps_untouched_entries(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("notes/a", "---\ntitle: A\n---\n")
    write_page("notes/b", "---\ntitle: B\n---\n")
    live = LivePageIndex(workspace, max_age_s=60, clock=_Clock())
    before = live.current()
    write_atomic(workspace.concepts_dir / "notes" / "b.md", "---\ntitle: B2\n---\n")
    after = live.current()
    assert after is not before
    assert after.get("notes/a") is before.get(
        "notes/a"
    )  # not re-parsed: the entity lane diffs by identity
    assert after.get("notes/b").title == "B2"


def test_live_index_follows_folders_created_and_removed(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "x")
    live = LivePageIndex(workspace, max_age_s=60, clock=_Clock())
    assert list(live.current().entries) == ["a"]
    write_page("deep/er/page", "x")
    assert sorted(live.current().entries) == ["a", "deep/er/page"]
    (workspace.concepts_dir / "deep" / "er" / "page.md").unlink()
    (workspace.concepts_dir / "deep" / "er").rmdir()
    assert list(live.current().entries) == ["a"]


def test_live_index_spaces_refreshes_but_refresh_waits_for_none(
    workspace: Workspace, write_page: PageWriter
) -> None:
    write_page("a", "x")
    clock = _Clock()
    live = LivePageIndex(workspace, max_age_s=60, clock=clock, min_interval_s=1.0)
    first = live.current()
    write_page("b", "x")
    clock.now = 0.5
    assert live.current() is first  # a bulk write does not rebuild the index on every turn
    clock.now = 1.0
    assert sorted(live.current().entries) == ["a", "b"]
    write_page("c", "x")
    assert "c" in live.refresh().entries  # an in-process writer does not wait for the interval


def test_a_file_name_that_is_not_utf8_is_a_parse_failure(workspace: Workspace) -> None:
    name = os.fsencode(workspace.concepts_dir) + b"/caf\xe9.md"
    with open(name, "wb") as fh:
        fh.write(b"# Cafe\nbody")
    (workspace.concepts_dir / "ok.md").write_text("# OK\n")
    index = load_page_index(workspace)
    assert list(index.entries) == ["ok"]
    [failure] = index.parse_failures
    assert failure.path == "caf\\xe9.md"
    assert "not valid UTF-8" in failure.error
    json.dumps([failure.slug, failure.path, failure.error], ensure_ascii=False).encode("utf-8")


def test_special_files_and_huge_files_are_never_read(workspace: Workspace) -> None:
    os.mkfifo(workspace.concepts_dir / "fifo.md")  # not listed: not a regular file
    (workspace.concepts_dir / "zero.md").symlink_to("/dev/zero")
    huge = workspace.concepts_dir / "huge.md"
    with open(huge, "wb") as fh:
        fh.truncate(MAX_PAGE_FILE_BYTES + 1)
    index = load_page_index(workspace)
    assert index.entries == {}
    failures = {f.slug: f.error for f in index.parse_failures}
    assert sorted(failures) == ["huge", "zero"]
    assert "over the cap" in failures["huge"] and "symbolic link" in failures["zero"]


def test_links_out_of_the_workspace_are_never_followed(
    workspace: Workspace, tmp_path: Path
) -> None:
    """A linked page (to a secret outside) and a linked folder (to a folder of
    pages outside) are reported, never read or listed as pages."""
    outside = tmp_path / "outside"
    (outside / "notes").mkdir(parents=True)
    (outside / "secret.md").write_text("# Secret\nthe launch code\n")
    (outside / "notes" / "n.md").write_text("# N\n")
    (workspace.concepts_dir / "alias.md").symlink_to(outside / "secret.md")
    (workspace.concepts_dir / "linked").symlink_to(outside / "notes")
    (workspace.concepts_dir / "real.md").write_text("# Real\n")
    index = load_page_index(workspace)
    assert list(index.entries) == ["real"]
    failures = {f.slug: f.error for f in index.parse_failures}
    assert "symbolic link" in failures["alias"] and "link to a folder" in failures["linked"]
    with pytest.raises(InvalidInputError, match="symbolic link"):
        path_for_slug(workspace.concepts_dir, "linked/new-page")
