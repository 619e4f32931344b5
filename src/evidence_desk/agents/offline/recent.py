"""Relative dates in a question, read against the archive's own time span.

A reader who asks an archive what was said "this year" or "recently" means the archive's
latest stretch, not the calendar's: an archive that ends in 2024 has nothing from the year
the question is asked in. So the planner reads these words against the archive profile's
last date (`ArchiveProfile.max_date`), and labels each window so a reader sees what it was
taken to mean:

* "this year", "the past year": the archive's last year up to its last date, labelled
  "2024 (the archive's last year)";
* "last year": the year before it;
* "in recent years", "recently", "lately": the archive's last 2 years, ending at its last date;
* "in the past N years", "the last N years": the last N years (N in digits or some words),
  ending at the archive's last date;
* "the last decade", "the past decade": the last 10 years.

Years are calendar years: "the last 2 years" of an archive ending 2024-03-07 is 2023-01-01
.. 2024-03-07. Without a last date nothing is resolved and the words stay words. "last
year" after a possessive or "the" ("his last year in office", "the last year of the war"),
and any of them followed by "of" ("the last 5 years of his presidency"), speak of someone's
own time, not the archive's, and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...types import TimeWindow
from .timeexpr import TimeMention

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "fifty": 50,
}  # fmt: skip
_N = r"(?P<n>\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")"
# A possessive or "the" before "last year" makes it someone's own year, not the archive's.
_OWNED = re.compile(r"(?:\b(?:the|his|her|their|its|our|my|your)|['’]s)\s+$", re.I)
_OF_AFTER = re.compile(r"^\s+of\b", re.I)

Resolve = Callable[[re.Match[str], str], TimeWindow | None]


def _count(m: re.Match[str]) -> int:
    n = m.group("n").lower()
    return _NUMBER_WORDS[n] if n in _NUMBER_WORDS else int(n)


def last_years(n: int, last_date: str) -> TimeWindow | None:
    """The archive's last `n` calendar years, ending at its last date; None for n < 1."""
    year = int(last_date[:4])
    if not 1 <= n < year:
        return None
    first = year - n + 1
    span = f"{year}" if n == 1 else f"{first}–{year}"
    what = "the archive's last year" if n == 1 else f"the archive's last {n} years"
    return TimeWindow(start=f"{first:04d}-01-01", end=last_date[:10], label=f"{span} ({what})")


def _year_before_last(last_date: str) -> TimeWindow:
    y = int(last_date[:4]) - 1
    label = f"{y} (the year before the archive's last)"
    return TimeWindow(start=f"{y:04d}-01-01", end=f"{y:04d}-12-31", label=label)


# Ordered so that a longer expression claims its words first.
_PATTERNS: tuple[tuple[re.Pattern[str], Resolve], ...] = (
    (
        re.compile(rf"\bthe\s+(?:past|last)\s+{_N}\s+years\b", re.I),
        lambda m, last: last_years(_count(m), last),
    ),
    (re.compile(r"\bthe\s+(?:past|last)\s+decade\b", re.I), lambda m, last: last_years(10, last)),
    (re.compile(r"\bthe\s+past\s+year\b", re.I), lambda m, last: last_years(1, last)),
    (
        re.compile(r"\b(?:in\s+)?recent\s+years\b|\brecently\b|\blately\b", re.I),
        lambda m, last: last_years(2, last),
    ),
    (re.compile(r"\bthis\s+year\b", re.I), lambda m, last: last_years(1, last)),
    (re.compile(r"\blast\s+year\b", re.I), lambda m, last: _year_before_last(last)),
)


def recent_mentions(question: str, last_date: str | None) -> list[TimeMention]:
    """The relative dates of `question` as windows ending at the archive's `last_date`.

    Empty when `last_date` is None or not an ISO date: then nothing can be dated.
    """
    if not last_date or not re.match(r"\d{4}-\d{2}-\d{2}", last_date):
        return []
    taken: list[tuple[int, int]] = []  # invariant: found mentions never overlap
    found: list[TimeMention] = []
    for pattern, resolve in _PATTERNS:
        for m in pattern.finditer(question):
            a, b = m.span()
            if any(a < tb and ta < b for ta, tb in taken) or _OF_AFTER.match(question[b:]):
                continue
            if m.group(0).lower().startswith("last") and _OWNED.search(question[:a]):
                continue
            window = resolve(m, last_date)
            if window is None:
                continue
            taken.append((a, b))
            found.append(TimeMention(a, b, window, question[a:b]))
    return sorted(found, key=lambda t: t.start)
