"""A move rewrites every link spelling the page format's own reader resolves to
the moved page (case, spaces inside the brackets, a part or a label after it,
frontmatter lists in any case), and nothing else: after it no link dangles."""

from __future__ import annotations

import random

from ingest.page_ops import move_page
from substrate import Settings
from substrate.pages import load_page_index
from substrate.pages.page_file import link_key, wikilinks
from tests.conftest import PageWriter


def spellings(slug: str, rng: random.Random) -> list[str]:
    """Link forms the reader resolves to `slug`, generated."""
    out = []
    for _ in range(25):
        cased = "".join(c.upper() if rng.random() < 0.4 else c for c in slug)
        inner = " " * rng.randint(0, 2) + cased + " " * rng.randint(0, 2)
        tail = rng.choice(["", "#Early days", "|the old town", "#x|label"])
        out.append(f"[[{inner}{tail}]]")
    return out


def test_every_spelling_the_reader_resolves_is_moved(
    settings: Settings, write_page: PageWriter
) -> None:
    rng = random.Random(8)
    write_page("places/lisbon", "---\ntitle: Lisbon\n---\nThe city by the river.\n")
    write_page("places/lisbon-old", "---\ntitle: Old\n---\nAnother page.\n")
    forms = spellings("places/lisbon", rng)
    assert all(link_key(wikilinks(f)[0]) == "places/lisbon" for f in forms)  # the reader's own
    body = "\n".join(f"- See {form} and [[places/lisbon-old]]." for form in forms)
    meta = "links: [Places/Lisbon, places/lisbon-old]\nedges:\n  - to: PLACES/LISBON\n"
    write_page("trip", f"---\ntitle: Trip\n{meta}---\n{body}\n")
    moved = move_page(settings, "places/lisbon", "places/lisboa")
    assert moved["relinked"] == ["trip"]
    index = load_page_index(settings.workspace)
    assert index.dangling_links == ()
    text = (settings.workspace.concepts_dir / "trip.md").read_text()
    targets = [link_key(t) for t in wikilinks(text)]
    assert targets.count("places/lisboa") == len(forms)
    assert targets.count("places/lisbon-old") == len(forms)  # a longer slug is left alone
    assert "places/lisbon]" not in text.casefold() and "places/lisbon\n" not in text.casefold()
    assert "|the old town]]" in text and "#Early days]]" in text  # labels and parts kept
    assert set(index.entries["trip"].link_targets()) >= {"places/lisboa", "places/lisbon-old"}
