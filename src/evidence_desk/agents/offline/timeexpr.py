"""Time expressions in a question, turned into inclusive ISO date windows.

The offline planner reads years, months, decades, centuries, ranges and open bounds
("before 1800", "since 1990") from the question's own words. Each expression becomes a
`TimeWindow` whose dates are inclusive, with the character span it came from, so the
planner can keep those words out of the key terms.

Conventions (documented in docs/auditor.md):
* a year is Jan 1..Dec 31; "May 1862" is that month; "March 4, 1861" is that day;
* "the 1930s" is 1930..1939, "the early/mid/late 1930s" are 1930-33 / 1934-36 / 1937-39;
* "the 1800s" and "the 19th century" are 1800..1899 (common usage), but "the 2000s" is the
  decade 2000..2009; "the '30s" and "the thirties" are the latest such decade that starts
  no later than the reference year (the archive's last year);
* "before X" / "prior to X" end the day before X starts; "until X" / "through X" end with
  X; "after X" starts the day after X ends; "since X" / "from X" start with X; open ends are
  0001-01-01 and 9999-12-31, not the archive's bounds: coverage decides later what is held.

Expressions read against the archive rather than the calendar ("this year", "recently":
`recent.py`; "the last State of the Union" with nobody named: `ordinals.py`) arrive as
anchored mentions: they claim their words first, and ranges and open bounds apply to them
too ("since last year").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...types import TimeWindow

OPEN_START = "0001-01-01"
OPEN_END = "9999-12-31"

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "twenty-first": 21, "twenty first": 21, "twenty-second": 22, "twenty second": 22,
}  # fmt: skip
_DECADE_WORDS = {
    "twenties": 2, "thirties": 3, "forties": 4, "fifties": 5,
    "sixties": 6, "seventies": 7, "eighties": 8, "nineties": 9,
}  # fmt: skip
_MOD = r"(?:\b(?P<mod>early|mid|late)[\s-]*)?"
_YEAR = r"(?:1\d{3}|20\d{2})"

# Ordered from most to least specific: an earlier pattern claims its span first.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")),
    (
        "mdy",
        re.compile(
            rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>{_YEAR})\b",
            re.I,
        ),
    ),
    (
        "dmy",
        re.compile(
            rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\.?,?\s+(?P<y>{_YEAR})\b",
            re.I,
        ),
    ),
    ("my", re.compile(rf"\b(?P<mon>{_MONTH_RE})\.?,?\s+(?:of\s+)?(?P<y>{_YEAR})\b", re.I)),
    ("yy", re.compile(rf"\b(?P<y>{_YEAR})\s*[-–—]\s*(?P<y2>\d{{2}})\b(?![-–—\d])")),
    (
        "century",
        re.compile(
            _MOD
            + r"(?:the\s+)?(?P<n>\d{1,2}(?:st|nd|rd|th)|"
            + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True))
            + r")[\s-]+century\b",
            re.I,
        ),
    ),
    ("decade", re.compile(_MOD + r"\b(?P<dec>1\d{2}|20\d)0['’]?s\b", re.I)),
    ("decade2", re.compile(_MOD + r"(?:(?<=\s)|^)['’‘](?P<d2>\d)0s\b", re.I)),
    (
        "decadew",
        re.compile(r"\bthe\s+" + _MOD + r"(?P<dw>" + "|".join(_DECADE_WORDS) + r")\b", re.I),
    ),
    ("year", re.compile(rf"\b(?P<y>{_YEAR})\b(?!\s*(?:%|percent))")),
)


@dataclass(frozen=True)
class TimeMention:
    """One time expression: its span in the question and the window it denotes."""

    start: int
    end: int
    window: TimeWindow
    text: str


def _last_day(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def _iso(year: int, month: int, day: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}"


def _years(a: int, b: int, label: str) -> TimeWindow:
    return TimeWindow(start=_iso(a, 1, 1), end=_iso(b, 12, 31), label=label)


def _modified(first: int, length: int, mod: str | None) -> tuple[int, int]:
    """Narrow a span of years to its early, mid or late part (thirds, rounded)."""
    if not mod:
        return first, first + length - 1
    third = length // 3
    mod = mod.lower()
    if mod == "early":
        return first, first + third
    if mod == "mid":
        return first + third + 1, first + 2 * third
    return first + 2 * third + 1, first + length - 1


def _decade_window(dec: int, mod: str | None, label: str) -> TimeWindow:
    if dec % 100 == 0 and dec < 2000:  # "the 1800s" is the century in common usage
        a, b = _modified(dec, 100, mod)
    else:
        a, b = _modified(dec, 10, mod)
    return _years(a, b, label)


def _window(kind: str, m: re.Match[str], ref_year: int) -> TimeWindow | None:
    g = m.groupdict()
    label = " ".join(m.group(0).split())
    if kind in ("iso", "mdy", "dmy"):
        y = int(g["y"])
        mon = int(g["m"]) if kind == "iso" else _MONTHS[g["mon"].lower()]
        d = int(g["d"])
        if not 1 <= mon <= 12 or not 1 <= d <= _last_day(y, mon):
            return None
        return TimeWindow(start=_iso(y, mon, d), end=_iso(y, mon, d), label=label)
    if kind == "my":
        y, mon = int(g["y"]), _MONTHS[g["mon"].lower()]
        return TimeWindow(start=_iso(y, mon, 1), end=_iso(y, mon, _last_day(y, mon)), label=label)
    if kind == "yy":
        a = int(g["y"])
        b = a - a % 100 + int(g["y2"])
        return _years(a, b, label) if b > a else None
    if kind == "century":
        n = g["n"].lower()
        num = _ORDINAL_WORDS.get(n) or int(re.sub(r"\D", "", n))
        if not 1 <= num <= 22:
            return None
        a, b = _modified((num - 1) * 100, 100, g.get("mod"))
        return _years(max(a, 1), b, label)
    if kind == "decade":
        return _decade_window(int(g["dec"]) * 10, g.get("mod"), label)
    if kind in ("decade2", "decadew"):
        digit = int(g["d2"]) if kind == "decade2" else _DECADE_WORDS[g["dw"].lower()]
        century = ref_year - ref_year % 100
        dec = century + digit * 10
        if dec > ref_year:
            dec -= 100
        return _decade_window(dec, g.get("mod"), label)
    y = int(g["y"])
    return _years(y, y, label)


_THE_KINDS = frozenset({"century", "decade", "decade2"})


def _raw_mentions(
    question: str, ref_year: int, anchored: Sequence[TimeMention]
) -> list[TimeMention]:
    # Invariant: no two mentions overlap; anchored ones hold their spans before any pattern.
    taken: list[tuple[int, int]] = [(t.start, t.end) for t in anchored]
    found: list[TimeMention] = list(anchored)
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(question):
            a, b = m.span()
            if any(a < tb and ta < b for ta, tb in taken):
                continue
            window = _window(kind, m, ref_year)
            if window is None:
                continue
            if kind in _THE_KINDS and question[:a].lower().endswith("the "):
                a -= 4  # "the 1930s" reads better than "1930s" in a label
                window = TimeWindow(start=window.start, end=window.end, label=question[a:b])
            taken.append((a, b))
            found.append(TimeMention(a, b, window, question[a:b]))
    return sorted(found, key=lambda t: t.start)


_RANGE_GAP = re.compile(
    r"^\s*(?:(?P<word>to|through|thru|until|till|and)\s+(?:the\s+)?|[-–—]\s*)$", re.I
)
_OPENER = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$", re.I)
_BEFORE = re.compile(r"\b(?:before|prior\s+to|earlier\s+than)\s+(?:the\s+)?$", re.I)
_UNTIL = re.compile(r"\b(?:until|till|up\s+to|up\s+until|through)\s+(?:the\s+)?$", re.I)
_AFTER = re.compile(r"\b(?:after|later\s+than)\s+(?:the\s+)?$", re.I)
_SINCE = re.compile(r"\b(?:since|from|starting\s+in|beginning\s+in)\s+(?:the\s+)?$", re.I)
# "differ from the 1960s" compares; it does not open a window at 1960.
_COMPARED_FROM = re.compile(r"\b(?:differ\w*|compared|contrast\w*|distinct|apart)\s+$", re.I)
COMPARISON_CUE = re.compile(
    r"\b(?:compare[ds]?|comparing|comparison|contrast\w*|versus|vs\.?|differ\w*)\b", re.I
)


def _is_range(question: str, cur: TimeMention, nxt: TimeMention) -> bool:
    """True when the words between two mentions make them one range.

    "and" needs an opener ("between A and B"); "to" needs one too when the question asks
    for a comparison ("compare the 1930s to the 2000s" has two sides, not a range).
    """
    m = _RANGE_GAP.match(question[cur.end : nxt.start])
    if m is None:
        return False
    word = (m.group("word") or "").lower()
    opened = _OPENER.search(question[: cur.start]) is not None
    if word == "and":
        return opened
    if word == "to":
        return opened or COMPARISON_CUE.search(question) is None
    return True


def _join_ranges(question: str, mentions: list[TimeMention]) -> list[tuple[TimeMention, bool]]:
    """Merge "between A and B", "from A to B" and "A–B" into one mention (flagged True)."""
    out: list[tuple[TimeMention, bool]] = []
    i = 0
    while i < len(mentions):
        cur = mentions[i]
        if i + 1 < len(mentions) and _is_range(question, cur, mentions[i + 1]):
            nxt = mentions[i + 1]
            opener = _OPENER.search(question[: cur.start])
            s = opener.start() if opener else cur.start
            window = TimeWindow(
                start=min(cur.window.start, nxt.window.start),
                end=max(cur.window.end, nxt.window.end),
                label=" ".join(question[s : nxt.end].split()),
            )
            out.append((TimeMention(s, nxt.end, window, question[s : nxt.end]), True))
            i += 2
            continue
        out.append((cur, False))
        i += 1
    return out


def _day_before(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    if d > 1:
        return _iso(y, m, d - 1)
    if m > 1:
        return _iso(y, m - 1, _last_day(y, m - 1))
    return _iso(y - 1, 12, 31)


def _day_after(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    if d < _last_day(y, m):
        return _iso(y, m, d + 1)
    if m < 12:
        return _iso(y, m + 1, 1)
    return _iso(y + 1, 1, 1)


def _open_bound(question: str, t: TimeMention) -> TimeMention:
    """Turn "before X", "until X", "after X", "since X" into an open-ended window."""
    head = question[: t.start]
    w = t.window
    rules: tuple[tuple[re.Pattern[str], tuple[str, str]], ...] = (
        (_BEFORE, (OPEN_START, _day_before(w.start))),
        (_UNTIL, (OPEN_START, w.end)),
        (_AFTER, (_day_after(w.end), OPEN_END)),
        (_SINCE, (w.start, OPEN_END)),
    )
    for pattern, (a, b) in rules:
        m = pattern.search(head)
        if m and not _COMPARED_FROM.search(head[: m.start()]):
            text = question[m.start() : t.end]
            return TimeMention(
                m.start(), t.end, TimeWindow(start=a, end=b, label=" ".join(text.split())), text
            )
    return t


def find_time_mentions(
    question: str, ref_year: int, anchored: Sequence[TimeMention] = ()
) -> list[TimeMention]:
    """All time expressions of `question`, in order, ranges and open bounds resolved.

    `ref_year` resolves two-digit decades ("the '30s"): the latest such decade that starts
    no later than `ref_year`. `anchored` are mentions other readers already resolved (they
    must not overlap each other); their spans are not read again.
    """
    joined = _join_ranges(question, _raw_mentions(question, ref_year, anchored))
    return [t if was_range else _open_bound(question, t) for t, was_range in joined]


def intersect(a: TimeWindow, b: TimeWindow, label: str) -> TimeWindow:
    """The inclusive intersection. When they do not overlap, start > end: an empty window."""
    return TimeWindow(start=max(a.start, b.start), end=min(a.end, b.end), label=label)


def is_empty(w: TimeWindow) -> bool:
    """True for a window that holds no date (start after end)."""
    return w.start > w.end
