"""Dates a sentence gives relative to its document resolve against the document's date."""

from __future__ import annotations

import pytest

from evidence_desk.agents.offline.docdates import full_date, relative_window, relative_windows

# (sentence, document date, expected (start, end) of its first relative date, or None)
CASES: list[tuple[str, str, tuple[str, str] | None]] = [
    ("In April, GSA launched the pilot.", "2017-08-28", ("2017-04-01", "2017-04-30")),
    ("In early April, GSA launched it.", "2017-08-28", ("2017-04-01", "2017-04-10")),
    ("By mid-April the pilot ran.", "2017-08-28", ("2017-04-11", "2017-04-20")),
    ("In late August, we shipped.", "2017-08-28", ("2017-08-21", "2017-08-31")),
    # A month after the document's month is last year's.
    ("In December, the team met.", "2018-01-15", ("2017-12-01", "2017-12-31")),
    ("In April of last year it moved.", "2017-08-28", ("2016-04-01", "2016-04-30")),
    ("On April 3, the site moved.", "2017-08-28", ("2017-04-03", "2017-04-03")),
    ("It moved on Sept. 12th.", "2017-08-28", ("2016-09-12", "2016-09-12")),
    ("On August 30 we met.", "2017-08-28", ("2016-08-30", "2016-08-30")),
    ("Last month the site moved.", "2017-01-10", ("2016-12-01", "2016-12-31")),
    ("This month the site moved.", "2017-08-28", ("2017-08-01", "2017-08-31")),
    ("Earlier this month the site moved.", "2017-08-28", ("2017-08-01", "2017-08-28")),
    ("Last week the site moved.", "2017-08-28", ("2017-08-21", "2017-08-27")),  # a Monday
    ("This week the site moved.", "2017-08-30", ("2017-08-28", "2017-09-03")),
    ("Earlier this week it moved.", "2017-08-30", ("2017-08-28", "2017-08-30")),
    ("Yesterday it moved.", "2017-03-01", ("2017-02-28", "2017-02-28")),
    ("Today it moved.", "2017-08-28", ("2017-08-28", "2017-08-28")),
    ("Last year it moved.", "2017-08-28", ("2016-01-01", "2016-12-31")),
    ("This year it moved.", "2017-08-28", ("2017-01-01", "2017-12-31")),
    ("Earlier this year it moved.", "2017-08-28", ("2017-01-01", "2017-08-28")),
    ("Last spring it moved.", "2017-08-28", ("2017-03-01", "2017-05-31")),
    ("Last summer it moved.", "2017-08-28", ("2016-06-01", "2016-08-31")),  # summer not over
    ("Last summer it moved.", "2017-09-01", ("2017-06-01", "2017-08-31")),
    ("Last fall it moved.", "2017-08-28", ("2016-09-01", "2016-11-30")),
    ("Last autumn it moved.", "2017-12-05", ("2017-09-01", "2017-11-30")),
    ("Last winter it moved.", "2018-01-15", ("2016-12-01", "2017-02-28")),
    ("Last winter it moved.", "2018-03-02", ("2017-12-01", "2018-02-28")),
    # Absolute dates, verbs, someone's own year: not dates relative to the document.
    ("In April 2016 it moved.", "2017-08-28", None),
    ("On April 3, 2016 it moved.", "2017-08-28", None),
    ("We may move it soon.", "2017-08-28", None),
    ("In his last year in office he moved it.", "2017-08-28", None),
    ("Over the last month it moved.", "2017-08-28", None),
    ("Nothing here is dated.", "2017-08-28", None),
]


@pytest.mark.parametrize(("sentence", "doc_date", "expected"), CASES)
def test_relative_dates_resolve_against_the_document(
    sentence: str, doc_date: str, expected: tuple[str, str] | None
) -> None:
    found = relative_window(sentence, doc_date)
    assert (None if found is None else (found.start, found.end)) == expected


def test_every_relative_date_in_text_order_with_its_words_as_label() -> None:
    found = relative_windows("Yesterday we met; last year, in March, we did not.", "2017-08-28")
    assert [(w.label, w.start) for w in found] == [
        ("Yesterday", "2017-08-27"),
        ("last year", "2016-01-01"),
        ("in March", "2017-03-01"),
    ]


def test_a_february_29th_goes_back_to_a_leap_year() -> None:
    found = relative_window("On February 29 it moved.", "2017-08-28")
    assert found is not None and found.start == "2016-02-29"


def test_without_a_document_date_nothing_resolves() -> None:
    assert relative_window("In April, GSA launched it.", None) is None
    assert relative_window("In April, GSA launched it.", "2017") is None


def test_full_date_is_the_date_as_a_whole() -> None:
    assert full_date("2017-08-28") == "August 28, 2017"
    assert full_date("1941-01-06T00:00:00Z") == "January 6, 1941"
    assert full_date(None) is None
    assert full_date("1941") is None
