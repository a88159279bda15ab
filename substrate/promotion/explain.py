"""`memory promotions explain`: what promotion makes of a statement, in the
order to inspect it when a promotion did or did not happen."""

from __future__ import annotations

from typing import Any

from substrate.config.settings import Settings
from substrate.errors import InvalidInputError
from substrate.promotion.detect import detect
from substrate.promotion.extract import extract_candidates
from substrate.promotion.promote import EVIDENCE_SESSIONS, category, evidence_for, target_file
from substrate.promotion.store import PromotionStore
from substrate.sessions import SessionLog


def explain(
    settings: Settings, log: SessionLog, text: str, session_id: str | None = None
) -> dict[str, Any]:
    """1. the direct input; 2. its candidates (and refusals); 3-5. per candidate,
    the detector, canonical key and category, and the earlier root sessions
    whose user messages give the same key; 6. the record it would touch."""
    if not text.strip():
        raise InvalidInputError("text is empty: give a statement to explain")
    extraction = extract_candidates(text)
    store = PromotionStore.load(settings.workspace)
    rows = []
    for candidate in extraction.candidates:
        found = detect(candidate.text)
        row: dict[str, Any] = {"candidate": candidate.text, "detected": found is not None}
        if found is not None:
            evidence = evidence_for(log, found, session_id or "")
            record = store.find(found.key)
            row |= {
                "kind": found.kind,
                "content": found.content,
                "key": found.key,
                "detector": found.detector,
                "category": category(found),
                "file": target_file(found),
                "search_phrases": found.search_phrases,
                "evidence_sessions": {s: ids for s, ids in sorted(evidence.items())},
                "promotes": len(evidence) >= EVIDENCE_SESSIONS,
                "record": record.as_json() if record else None,
            }
        rows.append(row)
    return {
        "input": text,
        "candidates": rows,
        "refused": [{"text": r.text, "reason": r.reason} for r in extraction.refused],
        "threshold": f"{EVIDENCE_SESSIONS} earlier root sessions plus this turn",
    }
