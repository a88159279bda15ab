"""Exclusive conflict categories, derived from a preference's content each time
it is compared (never stored): two active preferences of one category cannot
both hold, so a new one supersedes the old. Project facts have none."""

from __future__ import annotations

from substrate.promotion.detect import LANGUAGE_PATTERN, MANAGER_PATTERN, TESTERS
from substrate.safety import anchored

_RULES = (
    ("reply-verbosity", anchored(r"^prefer (?:concise|detailed|short|brief) replies$")),
    (
        "test-command",
        anchored(
            rf"^prefer (?:(?:{MANAGER_PATTERN}) (?:test|tests|run tests?)|{'|'.join(TESTERS)})$"
        ),
    ),
    ("package-manager", anchored(rf"^prefer (?:{MANAGER_PATTERN})$")),
    ("language-default", anchored(rf"^prefer (?:{LANGUAGE_PATTERN.lower()})$")),
    ("code-style", anchored(r"^always use [\w -]+$")),
)
CATEGORIES = tuple(name for name, _ in _RULES)


def category_of(key: str) -> str | None:
    """The exclusive category of a preference's content key, or None."""
    for name, pattern in _RULES:
        if pattern.match(key):
            return name
    return None
