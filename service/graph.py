"""The memory graph the web Memory tab draws, and one node's detail.

Nodes are concept pages plus `pending` nodes for buffer entries not yet
filed into pages (read through the buffer module's parser, the one matcher
every buffer reader uses). Edges are what authors wrote (`links`, `edges`,
`[[wikilinks]]`; a target that is not a page is dropped and counted) and
what the read path learned (co-selection edges, with their decayed weight).
A pending node links to the pages its entry names.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from lanes.conversations import TurnRecord
from lanes.edges import PRUNE, CoSelectionGraph
from service.reviewing import held_json
from substrate import (
    NotFoundError,
    PageIndex,
    Settings,
    entry_json,
    iso_utc,
    read_buffer,
)
from substrate.consolidation.explain import fact_json
from substrate.consolidation.tending import forgotten
from substrate.errors import InvalidInputError
from substrate.intake import BufferEntry
from substrate.pages import (
    decode_page,
    fact_bullets,
    read_page_file,
    split_facts,
    split_frontmatter,
    strip_markers,
)

BUFFER_PREFIX = "buffer:"
TURNS_SHOWN = 10


def build_graph(settings: Settings, index: PageIndex, learned: CoSelectionGraph) -> dict[str, Any]:
    entries = read_buffer(settings)
    authored, dangling = _authored_edges(index)
    co_selected = _learned_edges(learned, index)
    pending = _pending_edges(entries, index)
    degree: dict[str, int] = defaultdict(int)
    for edge in authored + co_selected + pending:
        degree[edge["source"]] += 1
        degree[edge["target"]] += 1
    nodes = [
        {
            "id": e.slug,
            "kind": "page",
            "title": e.title,
            "fresh_at": iso_utc(e.fresh_at),
            "source": e.source,
            "core": e.core,
            "degree": degree[e.slug],
        }
        for e in index.entries.values()
    ]
    nodes += [
        {
            "id": BUFFER_PREFIX + b.id,
            "kind": "pending",
            "title": _headline(b.text),
            "fresh_at": iso_utc(b.at),
            "source": None,
            "core": False,
            "degree": degree[BUFFER_PREFIX + b.id],
            "held": b.held,  # the scanner's rule while it is held for review
        }
        for b in entries
    ]
    return {
        "nodes": nodes,
        "edges": authored + co_selected + pending,
        "counts": {
            "pages": len(index.entries),
            "pending": len(entries),
            "held": sum(1 for b in entries if b.held),
            "authored_edges": len(authored),
            "learned_edges": len(co_selected),
            "dangling_links_dropped": dangling,
        },
    }


def _authored_edges(index: PageIndex) -> tuple[list[dict[str, Any]], int]:
    edges, dangling, seen = [], 0, set()
    for entry in index.entries.values():
        for link in entry.links:
            if link.target not in index.entries:
                dangling += 1
                continue
            key = (entry.slug, link.target)
            if key in seen or link.target == entry.slug:
                continue
            seen.add(key)
            edges.append(
                {"source": entry.slug, "target": link.target, "kind": "link", "via": link.via}
            )
    return edges, dangling


def _learned_edges(learned: CoSelectionGraph, index: PageIndex) -> list[dict[str, Any]]:
    out = []
    for a, b in sorted(learned.graph.edges()):
        weight = learned.weight(a, b)
        if weight >= PRUNE and a in index.entries and b in index.entries:
            out.append({"source": a, "target": b, "kind": "learned", "weight": round(weight, 4)})
    return out


def _pending_edges(entries: list[BufferEntry], index: PageIndex) -> list[dict[str, Any]]:
    return [
        {"source": BUFFER_PREFIX + b.id, "target": hint, "kind": "pending"}
        for b in entries
        for hint in b.hints
        if hint in index.entries
    ]


def _headline(text: str, limit: int = 80) -> str:
    """A pending fact's first line, without the `[[slug]]` hints (its edges show them)."""
    plain = strip_markers(text)
    for hint in BufferEntry("", datetime.now(UTC), plain).hints:
        plain = plain.replace(f"[[{hint}]]", "")
    plain = " ".join(plain.split())
    first = plain.strip().splitlines()[0] if plain.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def node_detail(
    settings: Settings,
    index: PageIndex,
    learned: CoSelectionGraph,
    turns: list[tuple[str, TurnRecord]],
    node_id: str,
) -> dict[str, Any]:
    """A page (or buffer entry), its links both ways, and the last turns that chose it."""
    if node_id.startswith(BUFFER_PREFIX):
        filed_into = _filed_into(index, node_id.removeprefix(BUFFER_PREFIX))
        if filed_into is None:
            return _buffer_detail(settings, index, node_id)
        # Consolidated since the graph was drawn: the pending node is that page now.
        return {**node_detail(settings, index, learned, turns, filed_into), "filed_from": node_id}
    entry = index.get(node_id)
    if entry is None:
        raise NotFoundError(f"no page or buffer entry with id {node_id!r}")
    path = settings.workspace.concepts_dir / entry.path
    try:
        text = decode_page(read_page_file(path))
        _, body = split_frontmatter(text)
    except (OSError, InvalidInputError):
        text = body = ""
    prose, _ = split_facts(body)  # the page as a reader sees it: no section, no markers
    incoming = sorted(
        {e.slug for e in index.entries.values() for link in e.links if link.target == node_id}
    )
    neighbours = sorted(
        ((other, learned.weight(node_id, other)) for other in learned.graph.neighbors(node_id))
        if node_id in learned.graph
        else [],
        key=lambda pair: (-pair[1], pair[0]),
    )
    chosen = [
        {
            "conversation_id": conv,
            "at": iso_utc(datetime.fromtimestamp(turn.at, UTC)),
            "lanes": list(turn.lanes[node_id]),
        }
        for conv, turn in turns
        if node_id in turn.lanes
    ][:TURNS_SHOWN]
    return {
        "id": node_id,
        "kind": "page",
        "page": {**entry_json(entry), "summary": entry.summary, "core": entry.core},
        "body": prose.strip("\n"),
        "facts": [fact_json(b) for b in fact_bullets(text) if not forgotten(b)],
        "links_out": [{"target": t, "exists": t in index.entries} for t in entry.link_targets()],
        "links_in": incoming,
        "learned": [
            {"slug": other, "weight": round(w, 4)} for other, w in neighbours if w >= PRUNE
        ],
        "selected_in": chosen,
    }


def _filed_into(index: PageIndex, entry_id: str) -> str | None:
    return next((slug for slug, e in index.entries.items() if entry_id in e.filed), None)


def _buffer_detail(settings: Settings, index: PageIndex, node_id: str) -> dict[str, Any]:
    wanted = node_id.removeprefix(BUFFER_PREFIX)
    for entry in read_buffer(settings):
        if entry.id == wanted:
            held = held_json(entry, settings) if entry.held else None
            return {
                "id": node_id,
                "kind": "pending",
                "entry": {"id": entry.id, "at": iso_utc(entry.at), "text": entry.text},
                "held": {"rule": held["rule"], "why": held["why"]} if held else None,
                "links_out": [{"target": h, "exists": h in index.entries} for h in entry.hints],
                "links_in": [],
                "learned": [],
                "selected_in": [],
            }
    raise NotFoundError(f"no buffer entry {wanted!r} (it may have been consolidated)")
