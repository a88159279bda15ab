"""The reviewer: deterministic policy from an extracted fact to a disposition.

`auto-apply` (written now), `pending-review` (waits for an operator) or
`ignore`, through gates in a fixed order, each with its reason: mode, evidence
(already checked by extraction), duplicate (already in the target file),
scanner, budget, sensitivity, risk and confidence. Only an explicit,
non-sensitive, low-risk, confident fact auto-applies; a sensitive or
higher-risk one is recorded for review without an applyable operation when it
is sensitive."""

from __future__ import annotations

from dataclasses import dataclass

from substrate.config.schema import CURATION_RISKS
from substrate.config.settings import Settings
from substrate.curation.extract import Fact
from substrate.errors import InvalidInputError, NeedsConfirmationError
from substrate.profile import check_profile_text, with_bullet
from substrate.profile.pending import park

AUTO, PENDING, IGNORE = "auto-apply", "pending-review", "ignore"


@dataclass(frozen=True)
class Decision:
    disposition: str
    reason: str
    applyable: bool  # whether an operator may apply it later

    @property
    def applies(self) -> bool:
        return self.disposition == AUTO


def target_file(fact: Fact) -> str:
    return "USER.md" if fact.target == "user" else "MEMORY.md"


def review(
    settings: Settings,
    fact: Fact,
    text: str,
    doubt: str | None = None,
    session: str | None = None,
) -> Decision:
    """`text`: the target file as the fact would be added to it."""
    tuning = settings.tuning  # values checked when the config was read
    mode, min_confidence, max_risk = (
        tuning.curation_mode,
        tuning.auto_apply_min_confidence,
        tuning.auto_apply_max_risk,
    )
    if mode == "off":
        return Decision(IGNORE, 'curation is off (curation_mode = "off")', False)
    name = target_file(fact)
    if f"- {fact.text}" in text.splitlines():
        return Decision(IGNORE, f"duplicate: already in {name}", False)
    try:
        check_profile_text(
            settings, name, with_bullet(name, text, fact.text), f"- {fact.text}", "extracted"
        )
    except NeedsConfirmationError as exc:  # the person's to confirm, never curation's
        park(settings, name, fact.text, "curation", exc.message, (session,) if session else ())
        return Decision(IGNORE, f"parked for the person's confirmation: {exc.message}", False)
    except InvalidInputError as exc:
        over = "budget" in str(exc)
        return Decision(PENDING if over else IGNORE, str(exc), over)
    if fact.sensitive:
        return Decision(PENDING, "sensitive: an operator decides", False)
    if CURATION_RISKS.index(fact.risk) > CURATION_RISKS.index(max_risk):
        return Decision(PENDING, f"risk {fact.risk} is over auto_apply_max_risk ({max_risk})", True)
    if fact.confidence < min_confidence:
        return Decision(
            PENDING,
            f"confidence {fact.confidence:.2f} is under auto_apply_min_confidence "
            f"({min_confidence:.2f})",
            True,
        )
    if mode == "review":
        return Decision(PENDING, 'curation_mode = "review": an operator decides', True)
    if doubt is not None:  # the evidence's whole sentences do not say what the fact says
        return Decision(PENDING, doubt, True)
    return Decision(AUTO, "explicit, non-sensitive, low risk, confident", True)
