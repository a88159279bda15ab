"""`/v1/memory-graph*`: the memory graph the web tab draws, and one node's detail."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from service.graph import build_graph, node_detail
from service.routes.common import ERRORS, runtime, settings
from service.runtime import Runtime
from substrate import Settings, memory_tier
from substrate.config import graph_unavailable_reason

router = APIRouter(tags=["graph"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]


@router.get("/v1/memory-graph")
def graph_get(s: SettingsDep, request_runtime: RuntimeDep) -> dict[str, Any]:
    unavailable = graph_unavailable(s)
    if unavailable:
        return unavailable
    injector = request_runtime.injector
    graph = build_graph(s, injector.page_index(), injector.learned_graph())
    return {"available": True, "tier": memory_tier(s.config), **graph}


@router.get("/v1/memory-graph-node")
def graph_node_get(
    s: SettingsDep,
    request_runtime: RuntimeDep,
    node_id: str = Query(alias="id", min_length=1, description="A page slug or buffer:<id>."),
) -> dict[str, Any]:
    unavailable = graph_unavailable(s)
    if unavailable:
        return unavailable
    injector = request_runtime.injector
    return node_detail(
        s, injector.page_index(), injector.learned_graph(), injector.recent_turns(), node_id
    )


def graph_unavailable(settings: Settings) -> dict[str, Any] | None:
    """None when the graph can be drawn; else the tier, why not, and where to go."""
    blocked = graph_unavailable_reason(settings.config)
    if blocked is None:
        return None
    why, action = blocked
    return {
        "available": False,
        "tier": memory_tier(settings.config),
        "reason": why,
        "action": action,
    }
