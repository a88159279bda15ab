"""Page operations on real files: write, edit against a content hash, move with
links rewritten, delete into the trash and restore, pin as core."""

from __future__ import annotations

import pytest

from ingest.page_ops import (
    Edit,
    delete_page,
    edit_page,
    move_page,
    pin_page,
    read_page,
    relinked_text,
    restore_page,
    trash,
    write_page,
)
from substrate import InvalidInputError, NotFoundError, ScannerRejection, Settings, StaleWriteError
from substrate.consolidation.tending import history
from substrate.pages import load_page_index
from tests.conftest import PageWriter

SAM = (
    '---\ntitle: "Sam"\n---\n# Sam\n\nSam works at Acme.\n\n## Notes\nold note\n\n## Later\nkept\n'
)


def test_write_creates_refuses_to_clobber_and_replaces_with_overwrite(settings: Settings) -> None:
    done = write_page(settings, "people/sam", SAM)
    assert done["op"] == "write_page" and read_page(settings, "people/sam")["content"] == SAM
    with pytest.raises(InvalidInputError, match="exists"):
        write_page(settings, "people/sam", "# Other\n")
    with pytest.raises(StaleWriteError):
        write_page(settings, "people/sam", "# Other\n", overwrite=True, expected_sha256="0" * 64)
    write_page(settings, "people/sam", "# Other\n", overwrite=True, expected_sha256=done["sha256"])
    assert read_page(settings, "people/sam")["content"] == "# Other\n"


def test_write_is_scanned_like_ingest(settings: Settings) -> None:
    with pytest.raises(ScannerRejection):
        write_page(settings, "keys", "# Keys\n\nmy key is sk-proj-" + "a1B2c3D4" * 6 + "\n")
    assert not (settings.workspace.concepts_dir / "keys.md").exists()


def test_edit_replaces_a_span_or_a_section_and_refuses_a_stale_hash(settings: Settings) -> None:
    sha = write_page(settings, "people/sam", SAM)["sha256"]
    done = edit_page(
        settings, "people/sam", sha, Edit("Sam works at Initech.", old="Sam works at Acme.")
    )
    with pytest.raises(StaleWriteError, match="changed since it was read"):
        edit_page(settings, "people/sam", sha, Edit("x", old="Initech"))
    edit_page(
        settings, "people/sam", done["sha256"], Edit("new note\nsecond line", section="Notes")
    )
    text = read_page(settings, "people/sam")["content"]
    assert "Initech" in text and "old note" not in text
    assert "## Notes\nnew note\nsecond line\n\n## Later\nkept\n" in text
    now = read_page(settings, "people/sam")["sha256"]
    with pytest.raises(InvalidInputError, match="does not occur"):
        edit_page(settings, "people/sam", now, Edit("x", old="not on the page"))
    with pytest.raises(InvalidInputError, match="no heading"):
        edit_page(settings, "people/sam", now, Edit("x", section="Missing"))
    assert read_page(settings, "people/sam")["sha256"] == now


def test_move_renames_and_rewrites_every_link(settings: Settings, write_page: PageWriter) -> None:
    write_page("people/sam", SAM)
    write_page(
        "acme",
        '---\ntitle: "Acme"\nlinks: ["people/sam"]\n---\nSee [[people/sam]] and [[people/sam|Sam]].\n',
    )
    done = move_page(settings, "people/sam", "people/sam-lee")
    assert done["relinked"] == ["acme"]
    index = load_page_index(settings.workspace)
    assert "people/sam" not in index.entries and "people/sam-lee" in index.entries
    assert index.dangling_links == ()
    acme = (settings.workspace.concepts_dir / "acme.md").read_text()
    assert "[[people/sam-lee]]" in acme and "[[people/sam-lee|Sam]]" in acme
    assert '"people/sam-lee"' in acme
    with pytest.raises(InvalidInputError, match="exists"):
        move_page(settings, "acme", "people/sam-lee")
    assert history(settings, "people/sam-lee")["events"][-1]["op"] == "move_page"


def test_a_pages_history_follows_it_across_its_renames(
    settings: Settings, write_page: PageWriter
) -> None:
    """After a move the page's history still holds what happened under its old
    name; a new page later given the old name has a history of its own."""
    write_page("people/sam", SAM)
    pin_page(settings, "people/sam", True)
    move_page(settings, "people/sam", "people/sam-lee")
    move_page(settings, "people/sam-lee", "people/samuel")
    write_page("people/sam", "---\ntitle: Another Sam\n---\nA different person.\n")
    pin_page(settings, "people/sam", True)
    ops = [e["op"] for e in history(settings, "people/samuel")["events"]]
    assert ops == ["pin", "move_page", "move_page"]
    newcomer = [e["op"] for e in history(settings, "people/sam")["events"]]
    assert newcomer[-1] == "pin" and newcomer.count("pin") == 2  # its own pin, and the first
    assert newcomer[:2] == ["pin", "move_page"]  # the old page's, while it had the name


def test_relinked_text_leaves_other_slugs_alone() -> None:
    text = "[[sam]] [[samuel]] [[sam#work]]"
    assert relinked_text(text, "sam", "s") == "[[s]] [[samuel]] [[s#work]]"


@pytest.mark.parametrize(
    "frontmatter",
    [
        "links: [home/budget, places/lisbon]",
        "links: [places/lisbon, home/budget]",
        "links: ['places/lisbon', \"home/budget\"]",
        "links:\n  - home/budget\n  - places/lisbon",
        'links:\n  - "places/lisbon"',
        "links: places/lisbon",
        "edges: [{to: places/lisbon, kind: visited}]",
        "edges:\n  - to: places/lisbon\n    kind: visited",
        'edges:\n  - {kind: visited, to: "places/lisbon"}',
    ],
)
def test_move_rewrites_every_link_form_the_page_format_reads(
    settings: Settings, write_page: PageWriter, frontmatter: str
) -> None:
    write_page("places/lisbon", "---\ntitle: Lisbon\n---\nA city.\n")
    write_page("home/budget", "---\ntitle: Budget\n---\nMoney.\n")
    write_page("trip", f"---\ntitle: Trip\n{frontmatter}\n---\nSee [[places/lisbon#food|food]].\n")
    move_page(settings, "places/lisbon", "places/lisboa")
    index = load_page_index(settings.workspace)
    assert index.dangling_links == ()
    assert "places/lisboa" in index.entries["trip"].link_targets()
    trip = (settings.workspace.concepts_dir / "trip.md").read_text()
    assert "places/lisbon" not in trip and "[[places/lisboa#food|food]]" in trip


def test_a_buffered_fact_hinted_at_a_moved_page_is_filed_on_it(
    settings: Settings, write_page: PageWriter
) -> None:
    from substrate.consolidation import consolidate
    from substrate.intake import remember

    write_page("places/lisbon", "---\ntitle: Lisbon\n---\nA city.\n")
    remember(settings, "The tram 28 is crowded. [[places/lisbon]]")
    move_page(settings, "places/lisbon", "places/lisboa")
    consolidate(settings)
    index = load_page_index(settings.workspace)
    assert "places/lisbon" not in index.entries
    assert "tram 28" in (settings.workspace.concepts_dir / "places/lisboa.md").read_text()


def test_delete_goes_to_the_trash_and_restore_brings_it_back(
    settings: Settings, write_page: PageWriter
) -> None:
    write_page("people/sam", SAM)
    done = delete_page(settings, "people/sam")
    assert "people/sam" not in load_page_index(settings.workspace).entries
    assert [t["name"] for t in trash(settings)] == [done["trash"]]
    with pytest.raises(NotFoundError):
        delete_page(settings, "people/sam")
    restore_page(settings, "people/sam")
    assert read_page(settings, "people/sam")["content"] == SAM
    assert trash(settings) == []
    ops = [e["op"] for e in history(settings, "people/sam")["events"]]
    assert ops == ["delete_page", "restore_page"]


def test_pin_and_unpin_set_core_in_the_frontmatter(
    settings: Settings, write_page: PageWriter
) -> None:
    write_page("people/sam", SAM)
    pin_page(settings, "people/sam", True)
    assert load_page_index(settings.workspace).entries["people/sam"].core
    pin_page(settings, "people/sam", False)
    assert read_page(settings, "people/sam")["content"] == SAM


def test_a_page_edit_keeps_the_pages_own_fact_markers(settings: Settings) -> None:
    """Only `memory ingest` makes an outside note's comments inert: an edit of
    a page the product wrote keeps its fact section, ids and lineage."""
    from datetime import date

    from substrate.pages import FactBullet, fact_bullets, new_page_text

    bullets = [
        FactBullet("0123456789ab", date(2026, 1, 2), "Sam works at Acme.", source="captured")
    ]
    sha = write_page(settings, "people/sam", new_page_text("Sam", bullets))["sha256"]
    edit_page(settings, "people/sam", sha, Edit("Sam is a welder.", old="Sam works at Acme."))
    text = read_page(settings, "people/sam")["content"]
    assert [b.entry_id for b in fact_bullets(text)] == ["0123456789ab"]
    assert "Sam is a welder." in text
