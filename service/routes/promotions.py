"""`/v1/promotions/*`: what promotion wrote to the profile, why a text would be
promoted, and forgetting a promotion."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from service.routes.common import ERRORS, Strict, runtime, settings, surface
from service.runtime import Runtime
from substrate import Settings
from substrate.promotion import PromotionStore, explain

router = APIRouter(prefix="/v1", tags=["promotions"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]
SurfaceDep = Annotated[str, Depends(surface)]


class ExplainIn(Strict):
    text: str = Field(min_length=1)
    session_id: str | None = None


@router.get("/promotions")
def promotions_get(s: SettingsDep) -> dict[str, Any]:
    return promotions_json(s)


@router.post("/promotions/explain")
def promotions_explain(body: ExplainIn, rt: RuntimeDep, s: SettingsDep) -> dict[str, Any]:
    return explain(s, rt.sessions, body.text, body.session_id)


@router.post("/promotions/{promotion_id}/forget")
def promotions_forget(promotion_id: str, rt: RuntimeDep, via: SurfaceDep) -> dict[str, Any]:
    """Erase a promotion: its line leaves the profile, its record goes (a
    tombstone keeps its old evidence from promoting it again)."""
    return rt.memory.forget(promotion_id, via=via)


def promotions_json(settings: Settings) -> dict[str, Any]:
    """Every record, grouped by nothing: the interface is the flat list."""
    store = PromotionStore.load(settings.workspace)
    records = sorted(store.records.values(), key=lambda r: (r.status, r.content))
    return {"records": [r.as_json() for r in records]}
