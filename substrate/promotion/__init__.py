"""Deterministic promotion of repeated preferences and project facts.

A direct user turn's statements (`extract`) are read by narrow English and
Arabic detectors (`detect`) into canonical content; when the same canonical
key was stated in two earlier root sessions of the log, it is written to the
profile (`promote`): preferences to USER.md, project facts to MEMORY.md, with
`promotions.json` (`store`) recording every promotion, exclusive categories
(`categories`) superseding, and every failure rolled back. No model or
embedder is imported anywhere in this room (a test checks)."""

from substrate.promotion.detect import PREFERENCE, PROJECT_FACT, Detection, detect
from substrate.promotion.explain import explain
from substrate.promotion.extract import MAX_CANDIDATES, extract_candidates
from substrate.promotion.promote import (
    EVIDENCE_SESSIONS,
    PromotionOutcome,
    file_for,
    forgotten_since,
    promote_turn,
    record_turns,
)
from substrate.promotion.store import PromotionRecord, PromotionStore

__all__ = [
    "EVIDENCE_SESSIONS",
    "MAX_CANDIDATES",
    "PREFERENCE",
    "PROJECT_FACT",
    "Detection",
    "PromotionOutcome",
    "PromotionRecord",
    "PromotionStore",
    "detect",
    "explain",
    "extract_candidates",
    "file_for",
    "forgotten_since",
    "promote_turn",
    "record_turns",
]
