"""The MCP tools' typed results: what a host sees as each tool's output schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from service.answers import Speaker, Voice


class Remembered(BaseModel):
    id: str = Field(description="The buffer entry's id (consolidation files it later).")
    held: str | None = Field(
        None,
        description="Set when the scanner held the fact for review: kept, but not filed "
        "until the operator releases it; names the rule.",
    )
    voice: Voice = "own"
    speaker: Speaker = None


class SearchHit(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    slug: str
    title: str
    score: float
    excerpt: str
    fresh_at: str | None = None
    source: str | None = None
    quarantine: str | None = None
    kind: str = "page"
    session_id: str | None = None  # an episode's session and time span
    from_: str | None = Field(None, alias="from")
    to: str | None = None


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]


class SelectedPage(BaseModel):
    slug: str
    title: str
    lanes: list[str] = Field(description="Why it was chosen: v3 lanes, v2 sources, or pkb.")
    score: float
    dated: str | None = Field(None, description="What the page is as of: its newest current fact.")


class Context(BaseModel):
    """What prompt assembly would inject for the message, block by block."""

    tier: str
    memory: str = Field("", description="The <memory> card (v3) or block (v2).")
    knowledge_base: str = Field("", description="The <knowledge_base> block (v1).")
    info: str = ""
    profile: str = Field("", description="Trusted profile memory.")
    recall: str = ""
    selected: list[SelectedPage]


class Page(BaseModel):
    slug: str
    title: str
    content: str = Field(description="The page file: frontmatter, then markdown.")
    sha256: str = Field(description="The file's content hash: edit_page's precondition.")
    aliases: list[str]
    links: list[str]
    source: str | None
    fresh_at: str | None
    modified_at: str


class PageSummary(BaseModel):
    slug: str
    title: str
    modified_at: str
    source: str | None


class PageList(BaseModel):
    pages: list[PageSummary]
    total: int = Field(description="Pages matching, before the limit.")


# Every MCP argument is bounded when the call arrives (the server's doc): a name
# (a slug, an id, a heading), a text (a fact, a query, a message), a page.
NAME_CHARS = 1000
TEXT_CHARS = 1024 * 1024
PAGE_CHARS = 8 * 1024 * 1024


class IngestPage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    slug: str = Field(max_length=NAME_CHARS)
    content: str = Field(
        max_length=PAGE_CHARS,
        description="The whole page: optional YAML frontmatter, then markdown.",
    )


class Ingested(BaseModel):
    dry_run: bool
    pages: list[dict[str, Any]] = Field(description="Each page's slug, status and reason.")
    index: dict[str, Any] | None = None
    index_error: str | None = None


class Consolidated(BaseModel):
    dry_run: bool
    outcome: dict[str, Any] = Field(description="What was (or would be) filed where.")


class Records(BaseModel):
    """Operator views: promotions, curation candidates, one decided candidate."""

    items: list[dict[str, Any]]


class Changed(BaseModel):
    """What a tending operation did (see each tool)."""

    result: dict[str, Any]
