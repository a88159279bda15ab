"""When two preferences cannot both hold, derived from their content each time
they are compared (never stored), so a new one supersedes the old: the same
exclusive category (the reply length, the package manager, …), or the same
frame with another value in any category ("Prefer dark mode." and "Prefer
light mode.", "أفضّل الوضع الداكن" and "أفضّل الوضع الفاتح"). Project facts never
conflict."""

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


MAX_VALUE = 3  # words of a value that differs between two preferences of one frame


def conflicts(a: str, b: str) -> bool:
    """Whether two preference keys (casefolded content) cannot both hold."""
    if a == b:
        return False
    category = category_of(a)
    return (category is not None and category == category_of(b)) or same_frame(a, b)


def same_frame(a: str, b: str) -> bool:
    """Two preferences that differ only in their value: the same words around one
    differing span of at most `MAX_VALUE` words, with what they share saying what
    the value is of — a word after the value ("prefer *dark* mode"), or, when only
    the words before it are shared, a value of one word that ends both ("prefer
    replies in *English*"). Also "prefer X over Y" against "prefer Y over X".
    Two values alone ("prefer tabs", "prefer spaces") share no frame."""
    left, right = a.split(), b.split()
    if _swapped(left, right):
        return True
    head = 0
    while head < min(len(left), len(right)) and left[head] == right[head]:
        head += 1
    tail = 0
    while tail < min(len(left), len(right)) - head and left[-1 - tail] == right[-1 - tail]:
        tail += 1
    one, two = left[head : len(left) - tail], right[head : len(right) - tail]
    if not (1 <= len(one) <= MAX_VALUE and 1 <= len(two) <= MAX_VALUE) or head < 1:
        return False
    return tail >= 1 or (head >= 2 and len(one) == len(two) == 1)


def _swapped(left: list[str], right: list[str]) -> bool:
    if "over" not in left or "over" not in right or left[0] != right[0]:
        return False
    at, bt = left.index("over"), right.index("over")
    return left[1:at] == right[bt + 1 :] and left[at + 1 :] == right[1:bt]
