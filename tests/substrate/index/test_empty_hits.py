"""A page with nothing to show (a title alone, its facts gone) never tops a
search with an empty excerpt."""

from __future__ import annotations

from substrate import Settings
from substrate.index import EdgeStore, SearchIndex
from tests.conftest import PageWriter
from tests.embedders import HashingEmbedder


def test_a_page_with_only_its_title_is_not_a_hit(
    settings: Settings, write_page: PageWriter
) -> None:
    write_page("people/zebedee", "---\ntitle: Zebedee\n---\n")
    write_page("people/zebedee-notes", "---\ntitle: Notes\n---\nZebedee keeps a springy bike.\n")
    search = SearchIndex(
        settings, HashingEmbedder(), EdgeStore(settings.workspace.state_dir / "qdrant")
    )
    try:
        search.maintain()
        hits = search.search("Zebedee", 5)
        assert hits and all(h.excerpt.strip() for h in hits)
        assert hits[0].slug == "people/zebedee-notes"
    finally:
        search.store.close()
