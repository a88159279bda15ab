"""`/v1/profile`: the profile files and the active promotions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from service.routes.common import ERRORS, settings
from substrate import Settings
from substrate.profile import read_profile
from substrate.promotion import PromotionStore

router = APIRouter(prefix="/v1", tags=["profile"], responses=ERRORS)
SettingsDep = Annotated[Settings, Depends(settings)]


@router.get("/profile")
def profile_get(s: SettingsDep) -> dict[str, Any]:
    """The profile files (text, size, budget) and the active promotions."""
    files = [
        {
            "name": f.name,
            "text": f.text,
            "chars": len(f.text),
            "budget": f.budget,
            "protected": f.protected,
            "exists": f.snapshot.exists,
        }
        for f in read_profile(s).values()
    ]
    active = [r.as_json() for r in PromotionStore.load(s.workspace).active()]
    return {"files": files, "active_promotions": active}
