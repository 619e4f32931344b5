"""Time expressions become inclusive ISO windows with the conventions docs/auditor.md lists."""

from __future__ import annotations

import pytest

from evidence_desk.agents.offline.timeexpr import (
    OPEN_END,
    OPEN_START,
    find_time_mentions,
    intersect,
    is_empty,
)
from evidence_desk.types import TimeWindow

CASES = [
    ("What did he say in 1934?", [("1934-01-01", "1934-12-31")]),
    ("the 1934's address", [("1934-01-01", "1934-12-31")]),
    ("in the 1860s", [("1860-01-01", "1869-12-31")]),
    ("in the 1930's", [("1930-01-01", "1939-12-31")]),
    ("in the early 1930s", [("1930-01-01", "1933-12-31")]),
    ("the mid-1930s", [("1934-01-01", "1936-12-31")]),
    ("the late 1960s", [("1967-01-01", "1969-12-31")]),
    ("the '30s", [("1930-01-01", "1939-12-31")]),
    ("during the thirties", [("1930-01-01", "1939-12-31")]),
    ("the 19th century", [("1800-01-01", "1899-12-31")]),
    ("the nineteenth century", [("1800-01-01", "1899-12-31")]),
    ("the twenty-first century", [("2000-01-01", "2099-12-31")]),
    ("the 1800s", [("1800-01-01", "1899-12-31")]),
    ("the 2000s", [("2000-01-01", "2009-12-31")]),
    ("between 1929 and 1933", [("1929-01-01", "1933-12-31")]),
    ("from 1861 to 1865", [("1861-01-01", "1865-12-31")]),
    ("1861–1865", [("1861-01-01", "1865-12-31")]),
    ("1861-65", [("1861-01-01", "1865-12-31")]),
    ("from the 1930s to the 1950s", [("1930-01-01", "1959-12-31")]),
    ("before 1800", [(OPEN_START, "1799-12-31")]),
    ("prior to 1850", [(OPEN_START, "1849-12-31")]),
    ("until 1850", [(OPEN_START, "1850-12-31")]),
    ("after 2001", [("2002-01-01", OPEN_END)]),
    ("since 1990", [("1990-01-01", OPEN_END)]),
    ("before the 1930s", [(OPEN_START, "1929-12-31")]),
    ("in May 1862", [("1862-05-01", "1862-05-31")]),
    ("on March 4, 1861", [("1861-03-04", "1861-03-04")]),
    ("on 4 July 1776", [("1776-07-04", "1776-07-04")]),
    ("on 1933-03-04", [("1933-03-04", "1933-03-04")]),
    ("in 1861 and 1862", [("1861-01-01", "1861-12-31"), ("1862-01-01", "1862-12-31")]),
    (
        "Compare the 1930s to the 2000s",
        [("1930-01-01", "1939-12-31"), ("2000-01-01", "2009-12-31")],
    ),
    (
        "How did the 1860s differ from the 1960s?",
        [("1860-01-01", "1869-12-31"), ("1960-01-01", "1969-12-31")],
    ),
    ("about 25 percent of 1,500 workers", []),
    ("no dates here at all", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_time_expressions_become_inclusive_windows(
    text: str, expected: list[tuple[str, str]]
) -> None:
    found = [(t.window.start, t.window.end) for t in find_time_mentions(text, ref_year=2025)]
    assert found == expected


def test_mentions_keep_their_span_and_label() -> None:
    q = "What was said about railroads before 1850?"
    (m,) = find_time_mentions(q, ref_year=2025)
    assert q[m.start : m.end] == "before 1850"
    assert m.window.label == "before 1850"


def test_two_digit_decades_resolve_against_the_reference_year() -> None:
    (m,) = find_time_mentions("the '20s", ref_year=2025)
    assert m.window.start == "2020-01-01"
    (m,) = find_time_mentions("the '30s", ref_year=2025)
    assert m.window.start == "1930-01-01"


def test_invalid_dates_are_not_windows() -> None:
    assert [t.window.start for t in find_time_mentions("February 30, 1900", 2025)] == ["1900-01-01"]


def test_disjoint_windows_intersect_to_an_empty_window() -> None:
    lincoln = TimeWindow(start="1861-12-03", end="1864-12-06", label="Lincoln")
    year = TimeWindow(start="1934-01-01", end="1934-12-31", label="1934")
    assert is_empty(intersect(lincoln, year, "Lincoln, 1934"))
    inside = intersect(lincoln, TimeWindow(start="1862-01-01", end="1862-12-31", label="1862"), "x")
    assert (inside.start, inside.end) == ("1862-01-01", "1862-12-31")
    assert not is_empty(inside)
