"""Dates a source sentence gives relative to its own document: "in early April", "last month".

News and blog archives date events by the article: "In early April, GSA launched ..." in a
post dated 2017-08-28 is about April 2017. Read against the document's date, such a sentence
can answer a question about April 2017 although its source is dated August, and the
answerer can show the reader the date it was read against. `relative_windows` resolves, all
windows inclusive:

* a month name without a year, after `in`, `on`, `by`, `since`, `until`, `through`,
  `during`, `from` or `of` ("in April", "in early/mid/late April": days 1-10 / 11-20 / 21
  to the end), the latest such month on or before the document's month; "in April of last
  year" / "of this year" name the year; a month and day without a year ("on April 3",
  "April 3rd") is the latest such day on or before the document's date;
* "last month", "this month", "earlier this month" (up to the document's date);
* "last week", "this week" (Monday to Sunday), "earlier this week" (up to the date);
* "yesterday", "today";
* "last year", "this year", "earlier this year" (up to the date);
* "last spring / summer / fall / autumn / winter": the latest such season (Mar-May,
  Jun-Aug, Sep-Nov, Dec-Feb) that ended before the document's date.

A month name counts only when it is capitalised ("may" is a verb), and not when a year
follows it ("April 2016" dates itself). "last ..." after a possessive or "the" ("his last
year", "the last month") is not a date of the document's, and is not read.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta

from ...types import TimeWindow

_FULL = {
    "January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7,
    "August": 8, "September": 9, "October": 10, "November": 11, "December": 12,
}  # fmt: skip
_MONTH_NAMES = tuple(_FULL)  # not calendar.month_name, which follows the locale
_ABBR = {
    "Jan.": 1, "Feb.": 2, "Mar.": 3, "Apr.": 4, "Aug.": 8, "Sept.": 9, "Sep.": 9,
    "Oct.": 10, "Nov.": 11, "Dec.": 12,
}  # fmt: skip
_MONTH = "|".join(sorted(_FULL, key=len, reverse=True))
_MONTH_OR_ABBR = "|".join(re.escape(m) for m in sorted({**_FULL, **_ABBR}, key=len, reverse=True))
_NO_YEAR = r"(?![,.]?\s*(?:of\s+)?\d{4})"
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}  # first month
_OWNED = re.compile(r"(?:\b(?:the|his|her|their|its|our|my|your)|['’]s)\s+$", re.I)

Resolve = Callable[[re.Match[str], date], tuple[date, date] | None]


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def _month_of(m: re.Match[str]) -> int:
    name = m.group("mon")
    return _FULL.get(name) or _ABBR[name]


def _in_month(m: re.Match[str], doc: date) -> tuple[date, date]:
    mon = _month_of(m)
    rel = (m.group("rel") or "").lower()
    if rel:
        y = doc.year - 1 if rel == "last" else doc.year
    else:
        y = doc.year if mon <= doc.month else doc.year - 1
    first, last = date(y, mon, 1), _month_end(y, mon)
    mod = (m.group("mod") or "").lower()
    if mod == "early":
        return first, date(y, mon, 10)
    if mod == "mid":
        return date(y, mon, 11), date(y, mon, 20)
    if mod == "late":
        return date(y, mon, 21), last
    return first, last


def _month_day(m: re.Match[str], doc: date) -> tuple[date, date] | None:
    mon, day = _month_of(m), int(m.group("d"))
    for y in range(doc.year, doc.year - 9, -1):  # Feb 29 may need a few years back
        if day <= calendar.monthrange(y, mon)[1] and date(y, mon, day) <= doc:
            return date(y, mon, day), date(y, mon, day)
    return None


def _last_month(m: re.Match[str], doc: date) -> tuple[date, date]:
    end = doc.replace(day=1) - timedelta(days=1)
    return end.replace(day=1), end


def _this_month(m: re.Match[str], doc: date) -> tuple[date, date]:
    end = doc if m.group("earlier") else _month_end(doc.year, doc.month)
    return doc.replace(day=1), end


def _last_week(m: re.Match[str], doc: date) -> tuple[date, date]:
    monday = doc - timedelta(days=doc.weekday() + 7)
    return monday, monday + timedelta(days=6)


def _this_week(m: re.Match[str], doc: date) -> tuple[date, date]:
    monday = doc - timedelta(days=doc.weekday())
    return monday, doc if m.group("earlier") else monday + timedelta(days=6)


def _year(m: re.Match[str], doc: date) -> tuple[date, date]:
    if m.group("which").lower() == "last":
        return date(doc.year - 1, 1, 1), date(doc.year - 1, 12, 31)
    return date(doc.year, 1, 1), doc if m.group("earlier") else date(doc.year, 12, 31)


def _season(m: re.Match[str], doc: date) -> tuple[date, date]:
    first = _SEASONS[m.group("season").lower()]
    # The season starting in `first` of year y ends two months later (winter: next year).
    for y in range(doc.year, doc.year - 3, -1):
        start = date(y, first, 1)
        end_month = first + 2
        end = _month_end(y + (end_month - 1) // 12, (end_month - 1) % 12 + 1)
        if end < doc:
            return start, end
    raise AssertionError("a season ends within two years")  # pragma: no cover


def _day(offset: int) -> Resolve:
    return lambda m, doc: (doc - timedelta(days=offset), doc - timedelta(days=offset))


# Ordered so that a longer expression claims its words first. Relative words are matched
# in any case; month names only capitalised.
_PATTERNS: tuple[tuple[re.Pattern[str], Resolve, bool], ...] = (
    (
        re.compile(
            rf"\b(?i:in|on|by|since|until|through|during|from|of)\s+"
            rf"(?:(?P<mod>(?i:early|mid|late))[\s-]+)?(?P<mon>{_MONTH})\b"
            rf"(?:\s+(?i:of)\s+(?P<rel>(?i:last|this))\s+(?i:year)\b|{_NO_YEAR}(?!\.?\s*\d))"
        ),
        _in_month,
        False,
    ),
    (
        re.compile(
            rf"(?<![\w.])(?P<mon>{_MONTH_OR_ABBR})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
            r"(?!,?\s*\d{4})"
        ),
        _month_day,
        False,
    ),
    (re.compile(r"\b(?P<earlier>earlier\s+)?this\s+month\b", re.I), _this_month, False),
    (re.compile(r"\blast\s+month\b", re.I), _last_month, True),
    (re.compile(r"\b(?P<earlier>earlier\s+)?this\s+week\b", re.I), _this_week, False),
    (re.compile(r"\blast\s+week\b", re.I), _last_week, True),
    (re.compile(r"\b(?P<earlier>earlier\s+)?(?P<which>this)\s+year\b", re.I), _year, False),
    (re.compile(r"\b(?P<which>last)\s+year\b", re.I), _year, True),
    (
        re.compile(r"\blast\s+(?P<season>spring|summer|fall|autumn|winter)\b", re.I),
        _season,
        True,
    ),
    (re.compile(r"\byesterday\b", re.I), _day(1), False),
    (re.compile(r"\btoday\b", re.I), _day(0), False),
)


def _doc_day(doc_date: str | None) -> date | None:
    if not doc_date:
        return None
    try:
        return date.fromisoformat(doc_date[:10])
    except ValueError:
        return None


def relative_windows(sentence: str, doc_date: str | None) -> list[TimeWindow]:
    """Every date `sentence` gives relative to its document's date, in text order.

    Empty when the document has no (ISO) date or the sentence dates nothing relatively.
    Each window's label is the expression as written.
    """
    doc = _doc_day(doc_date)
    if doc is None:
        return []
    taken: list[tuple[int, int]] = []  # invariant: the expressions found never overlap
    found: list[tuple[int, TimeWindow]] = []
    for pattern, resolve, owned_guard in _PATTERNS:
        for m in pattern.finditer(sentence):
            a, b = m.span()
            if any(a < tb and ta < b for ta, tb in taken):
                continue
            if owned_guard and _OWNED.search(sentence[:a]):
                continue
            span = resolve(m, doc)
            if span is None:
                continue
            taken.append((a, b))
            label = " ".join(m.group(0).split())
            found.append(
                (a, TimeWindow(start=span[0].isoformat(), end=span[1].isoformat(), label=label))
            )
    return [w for _, w in sorted(found, key=lambda p: p[0])]


def relative_window(sentence: str, doc_date: str | None) -> TimeWindow | None:
    """The first date `sentence` gives relative to its document's date, or None."""
    found = relative_windows(sentence, doc_date)
    return found[0] if found else None


def full_date(iso: str | None) -> str | None:
    """ "August 28, 2017" for "2017-08-28": the source's date as a whole, the way the gate
    reads a frame's date (`trust/units.py`); None when `iso` is not a date."""
    day = _doc_day(iso)
    if day is None:
        return None
    return f"{_MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"
