"""Text shaped like the prompt around it: refused from every source.

- `role_marker`: chat-template tokens (`<|im_start|>`, `[INST]`, `<<SYS>>`,
  `<|endoftext|>`), fake turns (a `System:` line, or lines voicing two
  parties), `[SYSTEM]`-style banners, and fences that claim to end one part of
  a prompt ("=== END UNTRUSTED USER INPUT ===");
- `memory_tag`: text that opens or closes the blocks we render memory into
  (`<memory>`, `<info>`, `<knowledge_base>`, …) or the tags of a system
  prompt, which could forge or escape an entry.

These run on the text with its lines kept (NFKC, invisible characters out).
"""

from __future__ import annotations

from substrate.safety.patterns import any_of
from substrate.safety.scanner.findings import Finding, quoted, rx

_ROLES = r"(?:system|user|assistant|ai|human|bot|model|chatgpt|gpt|claude|llm|developer)"
# What follows "System:" when it voices a turn rather than labels a value ("System: Ubuntu 22.04").
_PROSE = (
    r"(?:you|your|ignore|disregard|forget|from|new|override|good|now|the|this|we|i|as|always|"
    r"never|do|don'?t|please|respond|act|follow|comply|execute|important|critical|error|"
    r"emergency|note|update|remember|instructions?|only|all|it|there|here|let'?s|begin|start|"
    r"stop|end|access|print|output|reveal|debug|maintenance|due|warning|alert)\b"
)
ROLE_MARKERS = [
    r"<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|end_of_text|eot_id|eos|start_header_id|end_header_id|begin_of_text|pad|sep|fim_\w+|tool_call|tool)\s*\|>",
    r"<\s*/?\s*(?:im_start|im_end)\s*>",
    r"\[/?INST\]|<</?SYS>>|\[/?SYS\]",
    rf"(?im)^\s*(?:#{{1,6}}\s*|\*\*\s*)?(?:system|developer|sys)\s*(?:prompt|message|override|instruction|instructions|note|update)?\s*(?:\*\*)?\s*:\s*{_PROSE}",
    r"(?im)^\s*[\[(<{]\s*(?:system|sys|admin|administrator|developer|root|instructions?|override|assistant)(?:\s+[\w-]+){0,2}\s*[\])>}]",
    r"(?im)^\s*#{1,6}\s*(?:system|system (?:prompt|message|instructions?|override|update|note)|(?:new )?instructions?|override)\s*#*\s*$",
    r"(?i)(?:={3,}|#{3,}|-{3,}|%{3,}|\*{3,}|\]{3,}|>{3,})\s*(?:end|begin|start|stop)(?:\s+of)?\s+(?:\w+\s+){0,3}(?:prompt|input|instructions|context|system|data|ambiguity|conversation|text|message)",
    r"(?i)(?:={3,}|%{3,})\s*end\b",
    rf"(?im)^\s*{_ROLES}\s*:.*\n(?:.*\n)*?\s*{_ROLES}\s*:",
    r"(?i)(?:^|\n\n)\s*(?:human|assistant)\s*:",
]
_TAGS = (
    r"memory|info|knowledge_base|system|system[-_]?(?:reminder|prompt|message|instructions?)|"
    r"instructions?|user_?message|user_?input|assistant_?message|tool_?(?:call|result|output|response)|"
    r"essentials|threads|recent|pending|profile|recall|session_?recall|untrusted|trusted"
)
MEMORY_TAG = rx(rf"(?i)<\s*/?\s*(?:{_TAGS})\b[^<>]*>")
TEMPLATE_TOKENS = 3  # the first patterns: tokens no person types in a note
_ROLE_PATTERNS = tuple(rx(p) for p in ROLE_MARKERS)
_ANY_ROLE = any_of(_ROLE_PATTERNS)


def role_marker(text: str) -> Finding | None:
    if not _ANY_ROLE.search(text):
        return None
    for i, pattern in enumerate(_ROLE_PATTERNS):
        match = pattern.search(text)
        if match:
            detail = f"fake role or chat-template marker: {quoted(match.group(0))}"
            # template tokens are firm; a "System:" line or two voiced turns are a reading
            return Finding("role_marker", detail, firm=i < TEMPLATE_TOKENS)
    return None


def memory_tag(text: str) -> Finding | None:
    match = MEMORY_TAG.search(text)
    if match:
        return Finding(
            "memory_tag", f"opens or closes a reserved prompt tag: {quoted(match.group(0))}"
        )
    return None
