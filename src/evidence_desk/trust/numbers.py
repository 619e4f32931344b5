"""Numbers and dates: reading them from a claim and from evidence, and matching them.

A number or date stated in a claim must appear in the claim's cited evidence (passages and
metadata). Both sides are reduced to values; the rules, all of them:

* Digits compare by value: thousands separators are ignored ("10,000" == "10000", commas
  only in groups of three) and so are trailing decimal zeros ("3.50" == "3.5", "3.0" == "3").
* A scale word after digits multiplies: "1.5 million" == "1,500,000" (hundred, thousand,
  million, billion, trillion). In evidence the bare figure counts as well ("5 million" also
  states 5); in a claim, "5 million" needs 5,000,000.
* Ordinals reduce to their number: "1st", "2nd", "3rd", "4th", "73d" are 1, 2, 3, 4, 73.
  Ordinal words ("first", "second") are not numbers.
* Percentages: "3.5%", "3.5 %", "3.5 percent" and "3.5 per cent" are the percentage 3.5. A
  percentage in a claim needs a percentage of that value in the evidence; a plain number in a
  claim is also matched by a percentage of that value.
* Decades: a whole number ending in 0 followed by "s" ("1930s", "1930's", "40s") needs the
  same decade, or any whole number from 1930 to 1939, in the evidence. A plain 1930 in a
  claim is not matched by "1930s" in the evidence.
* Dates are compared as dates, not digits. A full date in a claim, ISO ("1933-03-04"), with
  a month name ("March 4, 1933", "4 March 1933", "Mar. 4th, 1933") or numeric in US order
  ("3/4/1933"; day first when the first number cannot be a month), needs that date in the
  evidence, in any of these forms. A month and year ("March 1933") needs a date in that
  month or the month and year stated; a month and day ("March 4") needs that month and day.
  A wrong month or day fails even when its digits occur elsewhere.
* The source's own date (metadata) supplies the date as a whole: the full date, its month
  and year, its year (`date_figures`), never its loose day or month numbers.
* Spelled numbers: a run of number words (zero..nineteen, twenty..ninety, hundred, thousand,
  million, billion, trillion; joined by spaces, hyphens, or "and" after hundred or a scale
  word) is one value: "twenty-five" = 25, "nineteen hundred" = 1900, "two million" = 2000000.
  A run that is not one number in English splits ("two three" = 2 and 3). A spelled number
  matches the same value in the evidence, spelled or in digits, and a number in digits
  matches the same value spelled. Case does not matter. One exception, for the pronoun: a
  lone "one" right after no, any, every, each, this, that, which or the ("no one", "this
  one") is not a number. Otherwise "one" is 1 ("one of the largest") and must be in the
  evidence as "one" or 1.
* Everything else is not a number: "half", "a dozen", roman numerals, "first".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple

_SMALL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORD_VALUES: dict[str, int] = {
    **{w: i for i, w in enumerate(_SMALL_WORDS.split())},
    **{w: 20 + 10 * i for i, w in enumerate(_TENS_WORDS.split())},
    "hundred": 100,
    **_SCALES,
}
_MONTH_NAMES = (
    "january/jan february/feb march/mar april/apr may june/jun july/jul august/aug "
    "september/sep/sept october/oct november/nov december/dec"
)
_MONTHS = {m: i + 1 for i, names in enumerate(_MONTH_NAMES.split()) for m in names.split("/")}

_WORD = "|".join(sorted(_WORD_VALUES, key=len, reverse=True))
_SPELLED = re.compile(rf"\b(?:{_WORD})(?:(?:\s+and\s+|\s+|-)(?:{_WORD}))*\b", re.IGNORECASE)
_PRONOUN_ONE = re.compile(r"\b(?:no|any|every|each|this|that|which|the)\s+$", re.IGNORECASE)
_PERCENT_AFTER = re.compile(r"\s?%|\s+per\s?cent\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"""(?P<n>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?)
    (?:(?P<pct>\s?%|\s+per\s?cent\b)
      |(?P<decade>['’]?s\b)
      |(?P<ordinal>(?:st|nd|rd|th|d)\b)
      |\s+(?P<scale>hundred|thousand|million|billion|trillion)\b)?""",
    re.IGNORECASE | re.VERBOSE,
)
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?!\d)")
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th|d)?,?\s+(\d{{4}})(?!\d)", re.IGNORECASE
)
_DAY_MONTH_YEAR = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|d)?\s+(?:of\s+)?({_MONTH})\.?,?\s+(\d{{4}})(?!\d)",
    re.IGNORECASE,
)
_NUMERIC_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?(\d{{4}})(?!\d)", re.IGNORECASE)
_MONTH_DAY = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th|d)?(?![\d,]*\s*\d{{4}})(?!\d)",
    re.IGNORECASE,
)


class Figure(NamedTuple):
    """A number or date read from text: its kind, canonical value and the words it came from."""

    kind: str  # "num", "pct", "decade" or "date"
    value: str  # canonical: plain decimal without exponent, or YYYY-MM-DD
    surface: str


def _canonical(number: Decimal) -> str:
    return format(number.normalize(), "f")


def _digit_figures(text: str, evidence: bool) -> Iterator[Figure]:
    for m in _NUMBER.finditer(text):
        raw = m.group("n").replace(",", "")
        value = Decimal(raw)
        surface = m.group(0)
        if m.group("pct"):
            yield Figure("pct", _canonical(value), surface)
        elif m.group("decade") and raw.isdigit() and raw.endswith("0"):
            yield Figure("decade", _canonical(value), surface)
        elif m.group("scale"):
            scale = _WORD_VALUES[m.group("scale").lower()]
            yield Figure("num", _canonical(value * scale), surface)
            if evidence:
                yield Figure("num", _canonical(value), m.group("n"))
        else:
            yield Figure("num", _canonical(value), surface)


def _continues(kind: str, value: int, last: str, current: int, largest_scale: int) -> bool:
    """Whether a number word of `kind` can extend the number read so far (English grammar)."""
    if kind == "and":
        return last in ("hundred", "scale")
    if kind == "small":
        return last in ("", "hundred", "scale", "and") or (last == "tens" and 0 < value < 10)
    if kind == "tens":
        return last in ("", "hundred", "scale", "and")
    if kind == "hundred":
        return last in ("", "small", "tens") and current < 100
    return last != "and" and value < largest_scale


def _spelled_values(words: list[str]) -> list[int]:
    """Values of a run of number words, split where the run stops being one number."""
    values: list[int] = []
    total = current = 0
    last = ""  # kind of the previous word; "" at the start of a number
    largest_scale = 10**15  # scale words must shrink: "two million three thousand"
    for word in words:
        value = _WORD_VALUES.get(word, 0)
        kind = (
            "and" if word == "and"
            else "small" if value < 20
            else "tens" if value < 100
            else "hundred" if value == 100
            else "scale"
        )  # fmt: skip
        if not _continues(kind, value, last, current, largest_scale):
            values.append(total + current)
            total = current = 0
            largest_scale = 10**15
            if kind == "and":  # a stray "and" separates two numbers
                last = ""
                continue
        if kind in ("small", "tens"):
            current += value
        elif kind == "hundred":
            current = max(current, 1) * 100
        elif kind == "scale":
            total += max(current, 1) * value
            current = 0
            largest_scale = value
        last = kind
    values.append(total + current)
    return values


def _spelled_figures(text: str) -> Iterator[Figure]:
    for m in _SPELLED.finditer(text):
        words = re.split(r"[\s-]+", m.group(0).lower())
        if words == ["one"] and _PRONOUN_ONE.search(text, max(0, m.start() - 12), m.start()):
            continue
        kind = "pct" if _PERCENT_AFTER.match(text, m.end()) else "num"
        for value in _spelled_values(words):
            yield Figure(kind, str(value), m.group(0))


def _dates(text: str) -> list[tuple[re.Match[str], str, int, int]]:
    """Full dates in `text`: (match, year, month, day), the forms of the rules above."""
    found: list[tuple[re.Match[str], str, int, int]] = []
    found += [(m, m[1], int(m[2]), int(m[3])) for m in _ISO_DATE.finditer(text)]
    found += [(m, m[3], _MONTHS[m[1].lower()], int(m[2])) for m in _MONTH_DAY_YEAR.finditer(text)]
    found += [(m, m[3], _MONTHS[m[2].lower()], int(m[1])) for m in _DAY_MONTH_YEAR.finditer(text)]
    for m in _NUMERIC_DATE.finditer(text):
        first, second = int(m[1]), int(m[2])
        month, day = (first, second) if first <= 12 else (second, first)
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append((m, m[3], month, day))
    return found


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _calendar(text: str) -> tuple[list[Figure], str]:
    """(the date, month and month-day figures of `text`, the text with them blanked)."""
    figures: list[Figure] = []
    spans: list[tuple[int, int]] = []
    for m, year, month, day in _dates(text):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        figures.append(Figure("date", f"{int(year):04d}-{month:02d}-{day:02d}", m.group(0)))
        spans.append(m.span())
    rest = _blank(text, spans)
    for m in _MONTH_YEAR.finditer(rest):
        if not m[1][0].isupper():  # "may", "march": a month only when capitalised
            continue
        figures.append(Figure("month", f"{int(m[2]):04d}-{_MONTHS[m[1].lower()]:02d}", m.group(0)))
        spans.append(m.span())
    for m in _MONTH_DAY.finditer(rest):
        if m[1][0].isupper() and not any(a < m.end() and m.start() < b for a, b in spans):
            figures.append(
                Figure("monthday", f"{_MONTHS[m[1].lower()]:02d}-{int(m[2]):02d}", m.group(0))
            )
            spans.append(m.span())
    return figures, _blank(text, spans)


def date_figures(iso_date: str | None) -> frozenset[tuple[str, str]]:
    """What a source's own date states as a whole: the date, its month, its year."""
    if not iso_date or not _ISO_DATE.match(iso_date[:10]):
        return frozenset()
    day = iso_date[:10]
    return frozenset(
        {("date", day), ("month", day[:7]), ("monthday", day[5:]), ("num", str(int(day[:4])))}
    )


def claim_figures(text: str) -> list[Figure]:
    """The numbers and dates a claim states (run it on the claim without its markers)."""
    figures, rest = _calendar(text)
    figures.extend(_digit_figures(rest, evidence=False))
    figures.extend(_spelled_figures(_NUMBER.sub(" ", rest)))
    return figures


@lru_cache(maxsize=1024)
def evidence_figures(text: str) -> frozenset[tuple[str, str]]:
    """(kind, value) of every number and date a piece of evidence states, for matching.

    A full date also states its month and its month and day; its digits count as numbers
    too (a passage's "March 14, 1963" does state 14 and 1963).
    """
    found: set[tuple[str, str]] = set()
    calendar, _ = _calendar(text)
    for figure in calendar:
        found.add((figure.kind, figure.value))
        if figure.kind == "date":
            found |= {("month", figure.value[:7]), ("monthday", figure.value[5:])}
    spelled = _spelled_figures(_NUMBER.sub(" ", text))
    for figure in (*_digit_figures(text, evidence=True), *spelled):
        found.add((figure.kind, figure.value))
        if figure.kind == "pct":
            found.add(("num", figure.value))
    return frozenset(found)


def unmatched_figures(
    claim_text: str, evidence: Iterable[str], stated: Iterable[tuple[str, str]] = ()
) -> tuple[str, ...]:
    """The claim's numbers and dates (as written) that the evidence does not state.

    `evidence` are texts (passages, title, names); `stated` are figures known as wholes,
    such as `date_figures` of the source's own date.
    """
    figures = claim_figures(claim_text)
    if not figures:
        return ()
    known: set[tuple[str, str]] = set(stated)
    for piece in evidence:
        known |= evidence_figures(piece)
    missing: list[str] = []
    for figure in figures:
        if figure.kind == "decade":
            base = int(figure.value)
            ok = ("decade", figure.value) in known or any(
                ("num", str(base + k)) in known for k in range(10)
            )
        else:
            ok = (figure.kind, figure.value) in known
        if not ok and figure.surface not in missing:
            missing.append(figure.surface)
    return tuple(missing)
