"""The safety scanner every write runs: rules, a learned second opinion, and a
policy chosen by who wrote the text.

Layers, in order:
1. hidden-reasoning blocks (`<think>…</think>`) are stripped;
2. `invisible`: characters that hide text (every source);
3. `normalize`: the views the rules read (NFKC, case, homoglyphs, spaced
   letters, leetspeak, tag payloads, base64/hex/URL-encoded blobs);
4. rules: `credentials`, `structure` (role markers, our tags) and
   `injection` (override, persona, extraction, poisoning, exfiltration,
   tampering, banners), every source; `instructions` under the strict policy;
5. the learned detector (`classifier`), when the scanner has one.

Policy by provenance: text the user wrote (`user`: a `remember`, a profile
edit) gets the `user` policy, where a preference phrased as an instruction
("always answer me in French") passes; everything else (`import`, `llm`,
`tool`, `extracted`, `captured`) gets `strict`, where an instruction aimed at
the assistant is flagged too (`instructions`: judged by its addressee).

What a finding does (`Verdict.action`) depends on its evidence and on whose
words these are:

- `refuse`: firm evidence (a secret's value, invisible or bidi characters, tag
  payloads, our reserved tags, chat-template tokens, an unambiguous
  override), from every source; and any finding in text a model, a tool or an
  extractor produced;
- `hold`: a judgement (the other injection families, the instruction rule,
  look-alike letters, the learned detector) on a person's own words (`user`,
  `captured`): the fact is stored held for review, out of every page and card
  until the operator releases it; nothing a person wrote is lost;
- `quarantine`: an imported page that trips an injection-shaped rule or a
  judgement is stored as quoted, untrusted data.

A rejection names the rule and the policy. Every pattern runs on RE2: linear
time whatever the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from substrate.errors import InvalidInputError, ScannerRejection
from substrate.safety.scanner.classifier import DeferredDetector, Detector, LearnedDetector
from substrate.safety.scanner.credentials import StatedReader, StatedValue, credential
from substrate.safety.scanner.findings import Finding, quoted, rx
from substrate.safety.scanner.guidance import only_sentences
from substrate.safety.scanner.injection import injection
from substrate.safety.scanner.instructions import read_instructions
from substrate.safety.scanner.invisible import invisible, strip_harmless
from substrate.safety.scanner.normalize import (
    CONFUSABLES,
    fold,
    fold_lines,
    mixed_script_word,
    views,
)
from substrate.safety.scanner.structure import memory_tag, role_marker

POLICIES = {
    "user": "user",
    "import": "strict",
    "llm": "strict",
    "tool": "strict",
    "extracted": "strict",
    "captured": "strict",
}
SOURCES = tuple(POLICIES)
# Strict sources that are the person's own words (their notes imported, a fact
# captured from their own turn): their guidance for how to be answered is theirs.
OWN_WORDS = frozenset({"import", "captured"})
# Rules whose finding, in an imported page, means "keep it, but as quoted data".
QUARANTINABLE = frozenset(
    {"prompt_injection", "role_marker", "memory_tag", "instruction", "learned_detector"}
)
# Sources whose text is a person's own words: a judgement holds it, never refuses it.
HOLDING = frozenset({"user", "captured"})
ACTIONS = ("store", "hold", "quarantine", "refuse")

# RE2 has no backreferences: one pattern per tag, so a block closes only on its own tag.
_HIDDEN_REASONING = [
    rx(rf"(?is)<{tag}\b[^>]*>.*?(?:</{tag}\s*>|\z)")
    for tag in ("thinking", "think", "reasoning", "scratchpad")
]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    rule: str | None
    detail: str | None
    source: str
    policy: str
    firm: bool = True  # the finding is firm evidence (see `findings.Finding`)

    @property
    def action(self) -> str:
        """`store`, `hold`, `quarantine` or `refuse` (the module doc says when)."""
        if self.ok:
            return "store"
        if self.source == "import" and (self.rule in QUARANTINABLE or not self.firm):
            return "quarantine"
        if not self.firm and self.source in HOLDING:
            return "hold"
        return "refuse"

    @property
    def quarantine(self) -> bool:
        """An imported page to keep as quoted, untrusted data rather than refuse."""
        return self.action == "quarantine"

    @property
    def held(self) -> bool:
        """A person's words to keep, held for review, rather than refuse."""
        return self.action == "hold"

    @property
    def held_rule(self) -> str:
        """The rule, with the injection family when there is one
        (`prompt_injection.persona`): what a held entry's mark names."""
        family = (self.detail or "").split(":", 1)[0]
        if self.rule == "prompt_injection" and family.isalpha():
            return f"{self.rule}.{family}"
        return self.rule or "unknown"

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rule": self.rule,
            "policy": self.policy,
            "detail": self.detail,
            "firm": self.firm,
            "action": self.action,
        }

    def rejection(self) -> ScannerRejection:
        return ScannerRejection(self.rule or "unknown", self.detail or "", self.policy)


@dataclass(frozen=True)
class Admitted:
    text: str  # hidden reasoning and harmless zero-width characters stripped
    verdict: Verdict


class Scanner:
    """The rules, plus a learned detector when one is given, and a reading of
    where a text states a secret's value by its structure (`reader`, the
    parse's: `meaning.secrets`); without one, that rule reads by pattern."""

    def __init__(
        self, detector: Detector | None = None, reader: StatedReader | None = None
    ) -> None:
        self.detector = detector
        self.reader = reader

    def findings(self, text: str, source: str = "user", *, learned: bool = True) -> list[Finding]:
        """Every rule that fires on `text` (hidden reasoning stripped first);
        `learned=False` leaves the learned detector out (its opinion alone never
        refuses a user's own words, so it need not be asked on their write path)."""
        policy = policy_for(source)
        cleaned = strip_hidden_reasoning(text)
        found = [f for f in (invisible(cleaned), credential(cleaned, self.reader)) if f is not None]
        readings = views(cleaned)
        spoofed = mixed_script_word(readings.folded)
        if spoofed is not None:
            detail = f"a word spelled with look-alike letters: {quoted(spoofed)}"
            found.append(Finding("homoglyph", detail, firm=False))
        lines = fold_lines(cleaned)
        found += [f for f in (memory_tag(lines), role_marker(lines)) if f is not None]
        hit = injection(readings, cleaned)
        if hit is not None:
            found.append(hit)
        guidance_only = False
        if policy == "strict":
            strict, guidance = read_instructions(
                readings, own_words=source in OWN_WORDS, raw=cleaned
            )
            if strict is not None:
                found.append(strict)
            # a note the rules read, every sentence, as the person's own guidance
            guidance_only = only_sentences(cleaned, guidance, fold)
        if (
            not found
            and learned
            and not guidance_only
            and self.detector is not None
            and cleaned.strip()
            and self.detector.flags(cleaned)
        ):
            found.append(
                Finding("learned_detector", "the learned detector reads it as an attack", False)
            )
        return found

    def check(self, text: str, source: str = "user", *, learned: bool = True) -> Verdict:
        """The verdict on the worst finding: the first firm one, else the first."""
        policy = policy_for(source)
        found = self.findings(text, source, learned=learned)
        if not found:
            return Verdict(True, None, None, source, policy)
        worst = next((f for f in found if f.firm), found[0])
        return Verdict(False, worst.rule, worst.detail, source, policy, worst.firm)

    def admit(self, text: str, source: str = "user", *, learned: bool = True) -> Admitted:
        """The text to store and its verdict (`store`, `hold` or `quarantine`);
        raises `ScannerRejection` when the verdict is to refuse."""
        verdict = self.check(text, source, learned=learned)
        if verdict.action == "refuse":
            raise verdict.rejection()
        return Admitted(strip_harmless(strip_hidden_reasoning(text)), verdict)

    def scan(self, text: str, source: str = "user", *, learned: bool = True) -> str:
        """The text to store (hidden reasoning and harmless zero-width characters
        stripped); raises `ScannerRejection`."""
        verdict = self.check(text, source, learned=learned)
        if not verdict.ok:
            raise verdict.rejection()
        return strip_harmless(strip_hidden_reasoning(text))


def policy_for(source: str) -> str:
    if source not in POLICIES:
        raise InvalidInputError(f"unknown source {source!r}; known: {', '.join(SOURCES)}")
    return POLICIES[source]


def strip_hidden_reasoning(text: str) -> str:
    if "<" not in text:  # every block opens with a tag
        return text
    for pattern in _HIDDEN_REASONING:
        text = pattern.sub("", text)
    return text


RULES = Scanner()  # the rules alone: what a process without the model uses


__all__ = [
    "ACTIONS",
    "CONFUSABLES",
    "HOLDING",
    "POLICIES",
    "QUARANTINABLE",
    "RULES",
    "SOURCES",
    "Admitted",
    "DeferredDetector",
    "Detector",
    "Finding",
    "LearnedDetector",
    "Scanner",
    "StatedReader",
    "StatedValue",
    "Verdict",
    "policy_for",
    "strip_hidden_reasoning",
]
