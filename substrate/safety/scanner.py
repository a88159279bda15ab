"""The safety scanner every write path runs before anything reaches disk.

`scan_text` strips hidden-reasoning blocks (`<think>…</think>` and kin) and
rejects, naming the rule that fired:

- `prompt_injection`: text that tries to instruct the assistant that later
  reads it ("ignore previous instructions", "you are now …").
- `role_marker`: chat-template tokens and fake system/assistant turns.
- `memory_tag`: text that opens or closes the `<memory>`/`<info>` blocks the
  card is rendered into, which could forge or escape an entry.
- `credential`: private keys, cloud/VCS/API tokens, JWTs, secret URLs and
  `NAME_KEY=secret` assignments.
- `invisible_character`: invisible, bidirectional and other control
  characters that hide text from a reader.

Every pattern runs on RE2 (`google-re2`), which matches in time linear in
the text whatever the pattern: a backtracking engine took 48 s on 2,000
blank lines under the role-marker pattern, and one such request froze the
service. RE2's `\\s`, `\\w` and `\\b` are ASCII; the patterns spell out
what they mean elsewhere.

Rules are deliberately narrow: notes *about* keys, tokens and instructions
("rotate the API key", "set OPENAI_API_KEY=<your key>") must pass. The
table-driven corpus under `tests/substrate/safety/scanner_corpus/` measures both
the catch rate and the false-positive rate (`bench/scanner.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]

from substrate.errors import ScannerRejection


@dataclass(frozen=True)
class Finding:
    rule: str
    detail: str


Pattern = Any  # a compiled RE2 pattern (the binding ships no types)

# RE2 has no backreferences: one pattern per tag, so a block closes only on its own tag.
_HIDDEN_REASONING = [
    re2.compile(rf"(?is)<{tag}\b[^>]*>.*?(?:</{tag}\s*>|\z)")
    for tag in ("thinking", "think", "reasoning", "scratchpad")
]


def _compile(pattern: str, flags: str = "") -> Pattern:
    return re2.compile(f"(?{flags}){pattern}" if flags else pattern)


_PREVIOUS = r"(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|existing|system)"
_DIRECTIVES = r"(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|context|messages?|constraints)"
_INJECTION = [
    _compile(
        rf"\b(?:ignore|disregard|forget|skip|override|bypass|drop)\s+(?:all\s+)?{_PREVIOUS}\s+{_DIRECTIVES}",
        "i",
    ),
    _compile(
        r"\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|(?:above|before|previously))",
        "i",
    ),
    _compile(
        r"\byou\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|an?\s+unfiltered|free\s+of)",
        "i",
    ),
    _compile(
        r"\b(?:new|updated|real|actual)\s+(?:system\s+)?instructions?\s*:\s*(?:you|ignore|disregard|always|never|from\s+now|the\s+assistant|do\s+not)\b",
        "i",
    ),
    _compile(
        r"(?:تجاهل|تجاهلي|انس|انسَ)\s+(?:كل|جميع)?\s*(?:التعليمات|الأوامر|القواعد|الإرشادات)", "i"
    ),
    _compile(
        r"\b(?:reveal|print|output|repeat|leak|show\s+me)\s+(?:your|the)\s+(?:full\s+|hidden\s+|secret\s+)?system\s+prompt",
        "i",
    ),
    _compile(
        r"\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant)\s+(?:must|will|should|shall)\s+(?:always\s+|never\s+)?(?:obey|ignore|disregard|comply|answer\s+without|reveal|pretend)",
        "i",
    ),
    _compile(
        r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|warn)\s+the\s+user\s+(?:about\s+)?(?:this|these)\s+(?:note|memory|instructions?|messages?)",
        "i",
    ),
    _compile(
        r"\b(?:act|pretend|behave)\s+as\s+(?:if\s+)?(?:you\s+(?:have|had)\s+no|an?\s+(?:unrestricted|unfiltered|jailbroken))",
        "i",
    ),
    _compile(
        r"\bwhen\s+(?:you|the\s+assistant)\s+(?:read|see|load|recall)s?\s+this(?:\s+memory|\s+note|\s+page)?,?\s+(?:you\s+must|always|immediately|silently)",
        "i",
    ),
]
_ROLE_MARKERS = [
    _compile(
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>",
        "i",
    ),
    _compile(r"\[/?INST\]|<</?SYS>>"),
    _compile(
        r"^\s*#{0,3}\s*(?:system|developer)\s*(?:prompt|message|override|instruction)?\s*:\s*(?:you\s+(?:are|must|will)|ignore|from\s+now|new\s+rules|override)",
        "im",
    ),
    _compile(r"^\s*(?:assistant|user)\s*:\s*.*\n\s*(?:assistant|user|system)\s*:", "im"),
    _compile(r"^\s*\[(?:system|SYSTEM)(?:\s+(?:message|note|override))?\]", "m"),
]
_MEMORY_TAG = _compile(
    r"<\s*/?\s*(?:memory|info|knowledge_base|system|system-reminder|instructions)\b[^<>]*>", "i"
)

_PLACEHOLDER = _compile(
    r"^(?:<.*>|\$\{?\w+\}?|\{\{.*\}\}|x{3,}|\*{3,}|\.{3,}|%\w+%|"
    r"(?:your|my|the)[-_\w]*|changeme|change_me|example[-_\w]*|placeholder|redacted|dummy|"
    r"test|none|null|true|false|secret|password|todo|tbd|[-\w]+[-_]here)$",
    "i",
)
_ASSIGNMENT = _compile(
    r"\b([A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?))\s*[=:]\s*['\"]?([^\s'\"]+)"
)
_CREDENTIALS: list[tuple[str, Pattern]] = [
    ("private key block", _compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", _compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("GitHub token", _compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("GitLab token", _compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("Slack token", _compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "API key (sk-…)",
        _compile(r"\bsk-(?:proj-|ant-(?:api\d+-)?|live-|or-v1-)?[A-Za-z0-9_-]{20,}"),
    ),
    ("Stripe key", _compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("Google API key", _compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Hugging Face token", _compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm token", _compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (
        "JSON web token",
        _compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    ("password in URL", _compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]{3,})@[^\s/]+", "i")),
]

_INVISIBLE = {
    **{
        c: "zero-width or invisible"
        for c in (0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x00AD)
    },
    **{
        c: "bidirectional control"
        for c in (0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    },
}
_JOINERS = (0x200C, 0x200D)


def strip_hidden_reasoning(text: str) -> str:
    for pattern in _HIDDEN_REASONING:
        text = pattern.sub("", text)
    return text


# Applied to a 12-character slice only, so the backtracking engine is bounded here.
_NEGATED = re.compile(r"(?:\bdo\s+not|n't|\bnever)\s+$", re.IGNORECASE)


def _injection(text: str) -> Finding | None:
    for pattern in _INJECTION:
        for match in pattern.finditer(text):
            # "Don't forget the prior instructions from the landlord" is a note, not an attack.
            if _NEGATED.search(text[max(0, match.start() - 12) : match.start()]):
                continue
            return Finding(
                "prompt_injection", f"instruction aimed at the assistant: {_quote(match.group(0))}"
            )
    return None


def _role_marker(text: str) -> Finding | None:
    for pattern in _ROLE_MARKERS:
        match = pattern.search(text)
        if match:
            return Finding(
                "role_marker", f"fake role or chat-template marker: {_quote(match.group(0))}"
            )
    return None


def _memory_tag(text: str) -> Finding | None:
    match = _MEMORY_TAG.search(text)
    if match:
        return Finding(
            "memory_tag", f"opens or closes a reserved prompt tag: {_quote(match.group(0))}"
        )
    return None


def _credential(text: str) -> Finding | None:
    for name, pattern in _CREDENTIALS:
        match = pattern.search(text)
        if match and not (name == "password in URL" and _PLACEHOLDER.match(match.group(1))):
            return Finding("credential", f"looks like a {name}")
    for match in _ASSIGNMENT.finditer(text):
        if _looks_secret(match.group(2).rstrip(".,;)")):
            return Finding("credential", f"secret assigned to {match.group(1)}")
    return None


def _looks_secret(value: str) -> bool:
    """A real secret rather than a placeholder, a reference or a plain word."""
    if len(value) < 8 or _PLACEHOLDER.match(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return has_alpha and (has_digit or (len(value) >= 20 and mixed_case))


_SUSPECT = re2.compile(
    "["
    + "".join(f"\\x{{{c:04X}}}" for c in sorted(_INVISIBLE))
    + "\\x{0000}-\\x{0008}\\x{000B}\\x{000C}\\x{000E}-\\x{001F}"
    + "\\x{E0000}-\\x{E007F}\\x{200C}\\x{200D}]"
)


def _invisible(text: str) -> Finding | None:
    """Each suspect character is found by one linear search; joiners and tag
    characters are then judged by their neighbours."""
    for match in _SUSPECT.finditer(text):
        i = match.start()
        code = ord(text[i])
        kind = _INVISIBLE.get(code)
        if kind is None and code < 0x20:
            kind = "control"
        if kind is None and 0xE0000 <= code <= 0xE007F and not _in_flag_sequence(text, i):
            kind = "invisible tag"
        if kind is None and code in _JOINERS and not _joins_visible(text, i):
            kind = "stray zero-width joiner"
        if kind is not None:
            return Finding("invisible_character", f"{kind} character U+{code:04X} at offset {i}")
    return None


def _joins_visible(text: str, i: int) -> bool:
    """ZWJ/ZWNJ are legitimate between non-ASCII letters or emoji (Persian, emoji families)."""
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    return bool(before and after) and ord(before) > 0x7F and ord(after) > 0x7F


def _in_flag_sequence(text: str, i: int) -> bool:
    """Tag characters are legitimate only inside a subdivision flag (🏴 + tags + cancel)."""
    j = i
    while j > 0 and 0xE0000 <= ord(text[j - 1]) <= 0xE007F:
        j -= 1
    return j > 0 and text[j - 1] == "\U0001f3f4"


def _quote(fragment: str) -> str:
    flat = " ".join(fragment.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


RULES: tuple[Callable[[str], Finding | None], ...] = (
    _invisible,
    _memory_tag,
    _role_marker,
    _injection,
    _credential,
)


def find_problems(text: str) -> list[Finding]:
    """Every rule that fires on `text` (after hidden reasoning is stripped)."""
    cleaned = strip_hidden_reasoning(text)
    return [f for f in (rule(cleaned) for rule in RULES) if f is not None]


def scan_text(text: str) -> str:
    """The text to store, with hidden reasoning stripped; raises `ScannerRejection`."""
    problems = find_problems(text)
    if problems:
        raise ScannerRejection(problems[0].rule, problems[0].detail)
    return strip_hidden_reasoning(text)
