"""The strict policy's extra rule: instruction-like text aimed at the assistant.

Text that did not come from the user's own words (an imported page, a
model's output, captured or extracted text, a tool's or a web page's
content) has no business telling the assistant what to do, however mild:
"Always answer in French" from the user is a preference; the same line inside
a web page is someone else steering the assistant. So under the strict
policy, imperatives addressed to the assistant ("always …", "never …", "you
must …", "from now on …", "when asked about X, say Y") are refused (or, for
an imported page, quarantined).
"""

from __future__ import annotations

from substrate.safety.scanner.findings import Finding, quoted, rx
from substrate.safety.scanner.normalize import Views

INSTRUCTIONS = [
    r"(?:^|[.!?:;\n]\s*)(?:always|never|do not|don'?t|make sure (?:to|you)|be sure to|remember to|from now on|going forward|henceforth|please (?:always|never|do not|don'?t|make sure|remember))\b",
    r"\b(?:you|the assistant|the ai|the model|the agent|assistants?)\s+(?:must|should|shall|will always|will never|are to|need to|have to|are required to|may not|must not|should not|cannot)\b",
    r"\bwhen(?:ever)?\s+(?:asked|the user asks|you are asked|someone asks|users? ask)\b",
    r"\b(?:when|whenever|if)\s+(?:i|we|they|he|she|anyone)\s+(?:asks?|says?|mentions?|types?|writes?|requests?)\b[^.\n]{0,80}?[,:]\s*(?:please\s+)?(?:include|say|reply|respond|answer|add|use|tell|give|always|never|mention|start|end|write)\b",
    r"\b(?:respond|reply|answer)\s+(?:only\s+)?(?:with|in|using|by)\b",
    r"\b(?:i want you to|i need you to|your (?:task|job|role) is)\b",
    # code that runs what it downloads, or reads the system's account files
    r"\b(?:curl|wget)\b[^\n|]{0,160}\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b",
    r"\b(?:exec|eval|system|popen|spawn|run)\s*\(\s*['\"`]?\s*(?:curl|wget|bash|sh|powershell)\b",
    r"/etc/(?:passwd|shadow|sudoers)\b",
]
_PATTERNS = tuple(rx(p) for p in INSTRUCTIONS)


def instruction(views: Views) -> Finding | None:
    for text in views.all():
        for pattern in _PATTERNS:
            match = pattern.search(text)
            if match:
                return Finding(
                    "instruction", f"instruction aimed at the assistant: {quoted(match.group(0))}"
                )
    return None
