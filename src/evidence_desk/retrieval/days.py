"""Dates as day numbers, so time windows filter with integer comparisons.

Both search engines filter by the same integers: the BM25 index holds a `day` field, the
vector store a per-row array. A row without a usable date holds `MISSING_DAY`, which no
window contains, so undated passages drop out whenever windows are given.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ..types import TimeWindow

EPOCH = dt.date(1970, 1, 1).toordinal()
# Invariant: below every real day number, so a range [lo, hi] with a real lo never holds it.
MISSING_DAY = int(np.iinfo(np.int32).min)
DayRange = tuple[int, int]

_ISO_PREFIX = re.compile(r"^\s*(-?\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def _parse(text: str, last: bool) -> dt.date | None:
    """The first (or, with `last`, final) day a YYYY, YYYY-MM or YYYY-MM-DD prefix covers."""
    m = _ISO_PREFIX.match(text)
    if not m:
        return None
    year = int(m.group(1))
    if not 1 <= year <= 9999:
        return None
    month = int(m.group(2)) if m.group(2) else (12 if last else 1)
    if not 1 <= month <= 12:
        return None
    last_day = calendar.monthrange(year, month)[1] if last else 1
    day = int(m.group(3)) if m.group(3) else last_day
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def day_number(iso: str | None, last: bool = False) -> int:
    """Days since 1970-01-01 for an ISO date or timestamp prefix; `MISSING_DAY` if unusable.

    Only the date part counts (a timestamp's time and offset are ignored). A partial date
    means its first day, or its last day when `last` is true (for the end of a window).
    """
    if not iso:
        return MISSING_DAY
    parsed = _parse(iso, last)
    return MISSING_DAY if parsed is None else parsed.toordinal() - EPOCH


def day_numbers(dates: Iterable[str | None]) -> npt.NDArray[np.int32]:
    return np.fromiter((day_number(d) for d in dates), dtype=np.int32)


def iso_day(number: int) -> str:
    return dt.date.fromordinal(number + EPOCH).isoformat()


def window_ranges(windows: Sequence[TimeWindow]) -> list[DayRange]:
    """Inclusive day ranges for the windows; a window with an unusable bound is an error."""
    out: list[DayRange] = []
    for w in windows:
        lo, hi = day_number(w.start), day_number(w.end, last=True)
        if lo == MISSING_DAY or hi == MISSING_DAY:
            raise ValueError(f"Time window {w.label!r} has a date that is not ISO (YYYY-MM-DD).")
        out.append((lo, hi))
    return out


def in_ranges(days: npt.NDArray[np.int32], ranges: Sequence[DayRange]) -> npt.NDArray[np.bool_]:
    """Row mask: the day lies in at least one range (never true for `MISSING_DAY`)."""
    mask = np.zeros(days.shape, dtype=bool)
    for lo, hi in ranges:
        mask |= (days >= lo) & (days <= hi)
    mask &= days != MISSING_DAY
    return mask
