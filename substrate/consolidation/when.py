"""Relative times in a fact, resolved against the moment it was said.

"I started learning the cello last month", filed as said, reads wrong a year
later: the page keeps the person's words and adds the date each relative time
meant, in brackets ("last month (February 2024)"), so the card and a question
about when ("how long have I been learning the cello?") have it. English and
Arabic; a fact already carrying a bracketed date is left as it is.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, timedelta

from substrate.safety import linear
from substrate.safety.patterns import Linear

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3,
}  # fmt: skip
_COUNT = r"(?P<n>\d{1,2}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_EN = linear(
    r"(?i)\b(?:(?P<yesterday>yesterday)|(?P<last>last) (?P<unit>week|month|year)|"
    + _COUNT
    + r" (?P<ago>day|week|month|year)s? ago)\b(?P<dated> \()?"
)
_AR = linear(
    r"(?:(?P<yesterday>أمس|البارحة)|(?P<unit>الأسبوع|الشهر|العام|السنة) (?P<last>الماضي|الماضية)|"
    r"منذ (?P<n>\d{1,2}) (?P<ago>أيام|يوم|أسابيع|أسبوع|أشهر|شهور|شهر|سنوات|سنة))(?P<dated> \()?"
)
_AR_UNITS = {
    "الأسبوع": "week", "الشهر": "month", "العام": "year", "السنة": "year",
    "أيام": "day", "يوم": "day", "أسابيع": "week", "أسبوع": "week",
    "أشهر": "month", "شهور": "month", "شهر": "month", "سنوات": "year", "سنة": "year",
}  # fmt: skip


AR_MONTHS = "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر".split()


_ADDED = linear(r" \((?:\d{1,2} )?(?:[A-Za-z\x{0600}-\x{06ff}]+ )?\d{4}\)")


def without_dates(text: str) -> str:
    """`text` as said: the dates `with_dates` added taken out again (what a
    reader comparing a page's fact with the words said needs; a date the
    person bracketed after a relative time goes too)."""
    out: list[str] = []
    at = 0
    for pattern in (_EN, _AR):
        for match in pattern.finditer(text):
            end = match.end() - len(match.group("dated") or "")
            added = _ADDED.match(text, end)
            if added is not None and end >= at:
                out.append(text[at:end])
                at = added.end()
    return "".join(out) + text[at:]


def with_dates(text: str, said: date) -> str:
    """`text` with each relative time followed by the date it meant on `said`."""
    if any("\u0600" <= ch <= "\u06ff" for ch in text):
        return _annotated(text, said, _AR, _AR_UNITS.get, AR_MONTHS)
    return _annotated(text, said, _EN, str, calendar.month_name[1:])


def _annotated(
    text: str,
    said: date,
    pattern: Linear,
    unit_of: Callable[[str], str | None],
    months: list[str],
) -> str:
    out: list[str] = []
    at = 0
    for match in pattern.finditer(text):
        groups = match.groupdict()
        if groups.get("dated"):
            continue  # already dated
        meant = _meant(groups, said, unit_of, months)
        if meant is None:
            continue
        out += [text[at : match.end()], f" ({meant})"]
        at = match.end()
    return "".join(out) + text[at:]


def _meant(
    groups: dict[str, str | None],
    said: date,
    unit_of: Callable[[str], str | None],
    months: list[str],
) -> str | None:
    if groups.get("yesterday"):
        return _day(said - timedelta(days=1), months)
    unit = unit_of(groups.get("unit") or groups.get("ago") or "")
    if unit is None:
        return None
    n = 1 if groups.get("last") else _count(groups.get("n") or "")
    if unit == "day":
        return _day(said - timedelta(days=n), months)
    if unit == "week":
        return _day(said - timedelta(weeks=n), months)
    if unit == "month":
        month = (said.year * 12 + said.month - 1) - n
        return f"{months[month % 12]} {month // 12}"
    return str(said.year - n)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word.lower(), 1)


def _day(day: date, months: list[str]) -> str:
    return f"{day.day} {months[day.month - 1]} {day.year}"
