"""Owns the concept-page format: YAML frontmatter + markdown body.

Parsing yields a `Page`: title, aliases, links (from `links:`, `edges:` and
inline `[[wikilinks]]`), provenance (`source`, `origin_date`) and `fresh_at`.
It does not own where pages live (`page_index`) or how they are written
(`safe_files`).

Frontmatter goes through python-frontmatter's YAML handler directly, not
`frontmatter.loads`, because `loads` silently turns a non-mapping frontmatter
(a YAML list or string) into `{}`, hiding a defect we must report.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from frontmatter.default_handlers import YAMLHandler

from substrate.errors import PageParseError
from substrate.pages.fact_section import fact_bullets, ids_of, newest_current
from substrate.safety.markers import inert
from substrate.safety.patterns import MULTILINE, linear
from substrate.safety.safe_files import read_regular_file

LinkVia = Literal["links", "edges", "wikilink"]

_YAML = YAMLHandler()


class _Loader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
    """Safe YAML that leaves timestamps as text: YAML raises on an impossible
    date (`2024-13-45`), which would fail the whole page, while an unparseable
    `origin_date` must only fall back to mtime (`parse_origin_date` decides)."""


_Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)
_FENCES = ("```", "~~~")
_INLINE_CODE = linear(r"`[^`\n]*`")
_WIKILINK = linear(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_HEADING = linear(r"^# +(.+)$", MULTILINE)
_BOUNDARY = linear(r"^-{3,}[ \t]*\r?$", MULTILINE)


@dataclass(frozen=True, slots=True)
class Link:
    target: str
    via: LinkVia


@dataclass(frozen=True, slots=True, kw_only=True)
class PageMeta:
    """What a page says about itself, parsed from its file: the field set the
    parsed `Page` and the cached `PageEntry` share (each adds its own)."""

    slug: str
    title: str
    aliases: tuple[str, ...]
    summary: str | None
    tags: tuple[str, ...]
    links: tuple[Link, ...]
    core: bool
    source: str | None
    origin_date: str | None
    content_hash: str
    filed: tuple[str, ...] = ()  # entry ids of the facts consolidation filed here
    facts: int = 0  # bullets in the managed fact section
    # the logged messages its captured facts were drawn from (their lineage)
    sources: tuple[int, ...] = ()
    quarantine: str | None = None  # why the scanner quarantined an imported page


@dataclass(frozen=True, slots=True, kw_only=True)
class Page(PageMeta):
    fresh_at: datetime
    body: str


def meta_of(page: PageMeta) -> dict[str, Any]:
    """The shared fields of a page, as keyword arguments for another kind."""
    return {f.name: getattr(page, f.name) for f in fields(PageMeta)}


# Any page file larger than this is a parse failure, never read whole: a hand-
# added 1 GB file (or a link to one) must not stall every scan. Ingest refuses
# pages far smaller (`ingest_max_page_bytes`).
MAX_PAGE_FILE_BYTES = 8 * 1024 * 1024


def read_page_file(path: Path) -> bytes:
    """A page file's bytes: a regular file within `MAX_PAGE_FILE_BYTES`, else an
    `InvalidInputError` naming why (see `read_regular_file`)."""
    return read_regular_file(path, MAX_PAGE_FILE_BYTES)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_page(data: bytes) -> str:
    """Bytes → text; a UTF-8 BOM (common from Windows editors) is tolerated and dropped."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise PageParseError(f"not UTF-8 (byte {exc.start}: {exc.reason})") from None


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(metadata, body); raises `PageParseError` for bad YAML or a non-mapping."""
    stripped = text.lstrip("\n")
    if not _YAML.detect(stripped):
        return {}, text
    try:
        fm, body = _YAML.split(stripped)
    except ValueError:
        return {}, text  # an opening '---' with no closing one: a horizontal rule, not frontmatter
    try:
        data = _YAML.load(fm, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise PageParseError(f"bad YAML frontmatter: {_one_line(str(exc))}") from None
    if data is None:
        return {}, body.lstrip("\n")
    if not isinstance(data, dict):
        raise PageParseError(f"frontmatter is not a mapping (got a YAML {type(data).__name__})")
    return {str(k): v for k, v in data.items()}, body.lstrip("\n")


def with_inert_body(text: str) -> str:
    """`text` with every comment opener of its body escaped (`safety.markers`):
    an imported page's words can never be read back as the product's markers
    (a fact section, a fact's id, status or lineage). The frontmatter stays
    byte for byte."""
    _, body = split_frontmatter(text)
    if "<!" not in body or not text.endswith(body):
        return text if "<!" not in body else inert(text)
    return text[: len(text) - len(body)] + inert(body)


def with_default_field(text: str, key: str, value: str) -> str:
    """`text` with `key: value` in its frontmatter unless the key is already set.

    The line is inserted before the closing `---` (a frontmatter block is
    created when the page has none), so every other byte of an imported page
    stays exactly as its author wrote it. Raises `PageParseError` for bad YAML.
    """
    if key in split_frontmatter(text)[0]:
        return text
    out = _with_line(text, f"{key}: {json.dumps(value, ensure_ascii=False)}\n")
    if split_frontmatter(out)[0].get(key) == value:
        return out
    raise PageParseError(f"cannot add {key!r} to the frontmatter without changing its meaning")


def with_flag(text: str, key: str, on: bool) -> str:
    """`text` with `key: true` in its frontmatter, or without the key (`on` False);
    every other line kept. Raises `PageParseError` when the key is set on more
    than one line (a list or a block), which a flag never is."""
    meta, _ = split_frontmatter(text)
    if bool(meta.get(key)) == on and (key in meta) == on:
        return text
    if key not in meta:
        return _with_line(text, f"{key}: true\n")
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if _BOUNDARY.match(line)][:2]
    head = range(fences[0] + 1, fences[1]) if len(fences) == 2 else range(0)
    at = [i for i in head if lines[i].split(":", 1)[0].strip() == key]
    refused = PageParseError(f"cannot set {key!r} in the frontmatter without changing its meaning")
    if len(at) != 1:
        raise refused
    out = [line for i, line in enumerate(lines) if i != at[0]]
    if on:
        out.insert(at[0], f"{key}: true")
    result = "\n".join(out)
    after = split_frontmatter(result)[0]
    if bool(after.get(key)) != on or (key in after) != on:
        raise refused
    return result


def _with_line(text: str, line: str) -> str:
    """`text` with `line` before its frontmatter's closing `---`, or in a new
    frontmatter block when it has none; every other byte kept."""
    stripped = text.lstrip("\n")
    bounds = list(_BOUNDARY.finditer(stripped))
    if len(bounds) >= 2 and bounds[0].start() == 0 and _YAML.detect(stripped):
        close = bounds[1].start()
        lead = text[: len(text) - len(stripped)]
        return lead + stripped[:close] + line + stripped[close:]
    return f"---\n{line}---\n" + text


def _one_line(message: str) -> str:
    return " ".join(message.split())


def parse_page(slug: str, data: bytes, mtime: datetime) -> Page:
    """Parse one page file's bytes. `fresh_at`, what the page is as of: its
    newest current fact's day or its `origin_date`, whichever is later, and
    `mtime` when it has neither."""
    text = decode_page(data)
    meta, body = split_frontmatter(text)
    origin = meta.get("origin_date")
    bullets = fact_bullets(body)
    return Page(
        slug=slug,
        title=_title(meta, body, slug),
        aliases=_strings(meta.get("aliases")),
        summary=_optional_str(meta.get("summary")),
        tags=_strings(meta.get("tags")),
        links=_links(meta, body),
        core=meta.get("core") is True,
        source=_optional_str(meta.get("source")),
        origin_date=None if origin is None else _origin_text(origin),
        fresh_at=_fresh_at(parse_origin_date(origin), newest_current(bullets)) or mtime,
        body=body,
        content_hash=content_hash(data),
        filed=ids_of(bullets),
        facts=len(bullets),
        sources=tuple(sorted({m for b in bullets for m in b.sources})),
        quarantine=_quarantine(meta.get("quarantine")),
    )


def _fresh_at(origin: datetime | None, newest: date | None) -> datetime | None:
    fact = None if newest is None else datetime(newest.year, newest.month, newest.day, tzinfo=UTC)
    return max((d for d in (origin, fact) if d is not None), default=None)


def _quarantine(value: Any) -> str | None:
    """Any value but an explicit false quarantines: a hand edit can mark a page
    untrusted, and only removing the field (a deliberate act) lifts it."""
    if value is None or value is False:
        return None
    return str(value).strip() or "quarantined"


def _title(meta: dict[str, Any], body: str, slug: str) -> str:
    title = meta.get("title")
    if title is not None and str(title).strip():
        return str(title).strip()
    match = _HEADING.search(strip_fences(body))
    if match:
        heading = str(match.group(1)).strip()
        return heading.rstrip("#").strip() or heading
    return slug.rsplit("/", 1)[-1]


def _optional_str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _strings(value: Any) -> tuple[str, ...]:
    """A scalar or list of scalars → strings; a lone string is a one-item list."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(s for s in (str(v).strip() for v in items if not isinstance(v, dict | list)) if s)


def _links(meta: dict[str, Any], body: str) -> tuple[Link, ...]:
    found: list[Link] = [Link(t, "links") for t in _strings(meta.get("links"))]
    edges = meta.get("edges")
    # Lenient: an edge without a usable `to` is skipped, since `edges` is
    # hand-written metadata and one malformed item should not fail the page.
    for edge in edges if isinstance(edges, list) else []:
        target = edge.get("to") if isinstance(edge, dict) else None
        if isinstance(target, str) and target.strip():
            found.append(Link(target.strip(), "edges"))
    found.extend(Link(t, "wikilink") for t in wikilinks(body))
    return tuple(dict.fromkeys(found))


def strip_fences(text: str) -> str:
    """`text` without its fenced code blocks: a line opening with ``` or ~~~ up to
    the next line that is the same fence alone (trailing blanks allowed). An
    unclosed fence is left as text. One pass over the lines: a regex with a
    lazy `.*?` and a backreference scanned to the end once per unclosed
    fence, quadratic on a page of them."""
    lines = text.split("\n")
    closers: dict[str, list[int]] = {f: [] for f in _FENCES}
    for i, line in enumerate(lines):
        bare = line.rstrip(" \t\r\f\v")
        if bare in closers:
            closers[bare].append(i)
    cursor = dict.fromkeys(_FENCES, 0)
    kept: list[str] = []
    i = 0
    while i < len(lines):
        fence = lines[i][:3]
        if fence in closers:
            found = closers[fence]
            while cursor[fence] < len(found) and found[cursor[fence]] <= i:
                cursor[fence] += 1
            if cursor[fence] < len(found):
                kept.append("")  # the block becomes one empty line
                i = found[cursor[fence]] + 1
                continue
        kept.append(lines[i])
        i += 1
    return "\n".join(kept)


def link_key(target: str) -> str:
    """What a link target resolves by: its spaces at either end and its case do
    not matter (`[[ Places/Lisbon ]]` is `places/lisbon`)."""
    return target.strip().casefold()


def relink_wikilinks(text: str, old: str, new: str) -> str:
    """Every wikilink the reader (`wikilinks`) resolves to `old`, whatever its
    spelling (case, spaces inside the brackets, a `#part` or `|label` after it),
    pointing at `new`; the part and label kept."""
    key = link_key(old)
    out, last = [], 0
    for m in _WIKILINK.finditer(text):
        if link_key(m.group(1)) != key:
            continue
        out += [text[last : m.start(1)], new]
        last = m.end(1)
    out.append(text[last:])
    return "".join(out)


def wikilinks(text: str) -> list[str]:
    """`[[slug]]`, `[[slug|label]]`, `[[slug#heading]]` targets, outside code."""
    prose = _INLINE_CODE.sub("", strip_fences(text))
    return [m.group(1).strip() for m in _WIKILINK.finditer(prose) if m.group(1).strip()]


def _origin_text(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def parse_origin_date(value: Any) -> datetime | None:
    """`origin_date` as an aware UTC datetime, or None when absent or unparseable.

    A date means midnight UTC; an offset-less datetime is UTC; pre-epoch
    dates are valid. YAML already turns unquoted ISO values into date and
    datetime objects; quoted ones arrive as strings.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return parse_origin_date(date.fromisoformat(text))
        return parse_origin_date(datetime.fromisoformat(text))
    except (ValueError, OverflowError):
        return None


def iso_utc(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a `Z`, the one timestamp form this service prints."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
