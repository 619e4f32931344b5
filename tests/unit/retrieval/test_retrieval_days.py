"""Day numbers: ISO dates and timestamps to integers, windows to inclusive ranges."""

from __future__ import annotations

import numpy as np
import pytest

from evidence_desk.retrieval.days import (
    MISSING_DAY,
    day_number,
    day_numbers,
    in_ranges,
    iso_day,
    window_ranges,
)
from evidence_desk.types import TimeWindow


def test_day_zero_is_the_unix_epoch() -> None:
    assert day_number("1970-01-01") == 0
    assert day_number("1969-12-31") == -1
    assert iso_day(day_number("1790-01-08")) == "1790-01-08"


def test_timestamps_count_by_their_date_part() -> None:
    assert day_number("2010-10-22 11:33:15 -0400") == day_number("2010-10-22")
    assert day_number("2010-10-22T23:59:59Z") == day_number("2010-10-22")


def test_partial_dates_mean_first_or_last_day() -> None:
    assert iso_day(day_number("1934")) == "1934-01-01"
    assert iso_day(day_number("1934", last=True)) == "1934-12-31"
    assert iso_day(day_number("2024-02", last=True)) == "2024-02-29"


@pytest.mark.parametrize("bad", [None, "", "undated", "2009-13-01", "2009-02-30", "0000-01-01"])
def test_unusable_dates_are_missing(bad: str | None) -> None:
    assert day_number(bad) == MISSING_DAY


def test_ranges_are_inclusive_and_never_hold_missing_days() -> None:
    days = day_numbers(["1934-01-03", None, "1939-12-31", "1940-01-01", "1929-12-31"])
    ranges = window_ranges([TimeWindow(start="1930", end="1939", label="1930s")])
    assert in_ranges(days, ranges).tolist() == [True, False, True, False, False]
    everything = [(int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max))]
    assert not in_ranges(days, everything)[1]


def test_a_window_that_is_not_iso_is_rejected() -> None:
    with pytest.raises(ValueError, match="not ISO"):
        window_ranges([TimeWindow(start="the thirties", end="1939", label="x")])
