"""What the CLI and the HTTP routes share about the learning side: the status
counts across the log, curation and promotion, and `forget` by whatever the
operator names (these span rooms, so they live here, in the composition root)."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from substrate import Settings
from substrate.curation import CurationStore, forget_candidate, forget_text
from substrate.llm import resolve_llm
from substrate.profile import read_profile
from substrate.promotion import PromotionStore, forget_promotion
from substrate.sessions import finalizations, open_session_log


def status_json(settings: Settings) -> dict[str, Any]:
    """Counts only, never transcript text: the log, finalizations, curation
    candidates, promotions and the profile files' use of their budgets."""
    log = open_session_log(settings.workspace, read_only=True)
    try:
        finals = finalizations.counts(log)
        sessions, messages = log.session_count(), log.count()
    finally:
        log.close()
    candidates = Counter(c.status for c in CurationStore.load(settings.workspace).candidates)
    promotions = Counter(r.status for r in PromotionStore.load(settings.workspace).records.values())
    return {
        "curation_mode": settings.tuning.curation_mode,
        "model_configured": resolve_llm(settings) is not None,
        "sessions": sessions,
        "messages": messages,
        "finalizations": finals,
        "candidates": dict(sorted(candidates.items())),
        "promotions": dict(sorted(promotions.items())),
        "profile": {
            f.name: {"chars": len(f.text), "budget": f.budget}
            for f in read_profile(settings).values()
        },
    }


def forget(settings: Settings, what: str) -> dict[str, Any]:
    """A promotion id (p-…), a curation candidate id (c-…) or a profile line's text."""
    if what.startswith("p-"):
        record = forget_promotion(settings, what, time.time())
        return {"forgot": record["id"], "content": record["content"]}
    if what.startswith("c-"):
        candidate = forget_candidate(settings, what)
        return {"forgot": candidate["id"], "content": candidate["text"]}
    return {"forgot": what, "content": what, "files": forget_text(settings, what)}
