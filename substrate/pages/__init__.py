"""Pages: the concept-page file format, slugs, and the PageIndex (with its live
refresh for long-lived readers).

Owns how a page is parsed (frontmatter, links, provenance, `fresh_at`), which
slugs are safe to write, and the cached index of every page with the corpus's
parse failures and dangling links. It imports only `config` and `safety`; it
knows nothing of the buffer or the search index and must not import `intake`,
`index` or anything above them.
"""

from substrate.pages.fact_section import (
    FactItem,
    fact_bullets,
    fact_chains,
    filed_ids,
    new_page_text,
    newest_current,
    section_links,
    split_facts,
    strip_markers,
    with_facts,
)
from substrate.pages.facts import FactBullet, Status, fold, in_words, reader_line, voice_note
from substrate.pages.live_index import LivePageIndex, fresh_index, fresh_pages
from substrate.pages.page_file import (
    Link,
    Page,
    content_hash,
    decode_page,
    iso_utc,
    parse_origin_date,
    parse_page,
    read_page_file,
    split_frontmatter,
    wikilinks,
    with_default_field,
    with_flag,
    with_inert_body,
)
from substrate.pages.page_index import (
    DanglingLink,
    PageEntry,
    PageIndex,
    ParseFailure,
    entry_json,
    load_page_index,
)
from substrate.pages.slugs import path_for_slug, slug_problem, validate_slug

__all__ = [
    "DanglingLink",
    "FactBullet",
    "FactItem",
    "Link",
    "LivePageIndex",
    "Page",
    "PageEntry",
    "PageIndex",
    "ParseFailure",
    "Status",
    "content_hash",
    "decode_page",
    "entry_json",
    "fact_bullets",
    "fact_chains",
    "filed_ids",
    "fold",
    "fresh_index",
    "fresh_pages",
    "in_words",
    "iso_utc",
    "load_page_index",
    "new_page_text",
    "newest_current",
    "parse_origin_date",
    "parse_page",
    "path_for_slug",
    "read_page_file",
    "reader_line",
    "section_links",
    "slug_problem",
    "split_facts",
    "split_frontmatter",
    "strip_markers",
    "validate_slug",
    "voice_note",
    "wikilinks",
    "with_default_field",
    "with_facts",
    "with_flag",
    "with_inert_body",
]
