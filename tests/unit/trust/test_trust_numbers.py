"""Numbers and dates: what a claim states and what evidence must hold."""

from __future__ import annotations

import pytest

from evidence_desk.trust.numbers import (
    claim_figures,
    date_figures,
    evidence_figures,
    unmatched_figures,
)


def values(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for f in claim_figures(text)]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("10,000 men", "10000 men"),
        ("10000 men", "some 10,000 men"),
        ("3.50 dollars", "3.5 dollars"),
        ("3.0 points", "3 points"),
        ("3.5%", "3.5 percent"),
        ("3.5%", "3.5%"),
        ("3.5 per cent", "3.5 %"),
        ("3.5 growth", "3.5 percent growth"),  # a plain number matches a percentage
        ("the 73d Congress", "the 73 Congress"),
        ("the 2nd and 1st and 3rd and 4th", "1, 2, 3 and 4"),
        ("the 1930s", "in 1934"),
        ("the 1930's", "the 1930s"),
        ("in his 40s", "aged 47"),
        ("1.5 million jobs", "1,500,000 jobs"),
        ("5 million jobs", "5 million jobs"),
        ("5 jobs", "5 million jobs"),  # the bare figure counts in evidence
        ("on 1933-03-04", "on March 4, 1933"),
        ("on 1933-03-04", "on 4 March 1933"),
        ("on 1933-03-04", "on Mar. 4th, 1933"),
        ("on 1933-03-04", "dated 1933-03-04"),
        ("on March 4, 1933", "1933-03-04"),  # month-name dates reduce to day and year
        ("twenty-five states", "25 states"),
        ("twenty five states", "twenty-five states"),
        ("25 states", "twenty-five states"),
        ("Nineteen hundred", "1900"),
        ("two million three thousand", "2,003,000"),
        ("one hundred and twenty", "120"),
        ("five percent", "5%"),
        ("zero", "0"),
        ("a hundred years", "100 years"),
        ("no one came, this one stayed", "nobody"),  # the pronoun is not a number
        ("one of the largest", "one of the largest"),
    ],
)
def test_matches(claim: str, evidence: str) -> None:
    assert unmatched_figures(claim, [evidence]) == ()


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("10,001 men", "10,000 men", ("10,001",)),
        ("3.5%", "3.5 million", ("3.5%",)),  # a percentage needs a percentage
        ("the 1930s", "in 1940", ("1930s",)),
        ("in 1930", "the 1930s", ("1930",)),  # a decade does not state a year
        ("5 million jobs", "5 jobs", ("5 million",)),
        ("5 million jobs", "5 thousand jobs", ("5 million",)),
        ("on 1933-03-05", "on March 4, 1933 and March 5, 1934", ("1933-03-05",)),
        ("twenty-five states", "20 and 5 states", ("twenty-five",)),
        ("one of the largest", "of the largest", ("one",)),
        ("three or 3", "four", ("3", "three")),
        ("7 and 7", "eight", ("7",)),  # reported once
    ],
)
def test_mismatches(claim: str, evidence: str, missing: tuple[str, ...]) -> None:
    assert unmatched_figures(claim, [evidence]) == missing


def test_no_figures_needs_no_evidence() -> None:
    assert unmatched_figures("A claim without figures.", []) == ()


def test_figures_need_some_evidence() -> None:
    assert unmatched_figures("In 1933.", []) == ("1933",)


def test_evidence_is_pooled_across_texts() -> None:
    assert unmatched_figures("In 1933, 25%", ["In 1933", "25 percent"]) == ()


def test_claim_figure_kinds() -> None:
    assert values("1930s, 3%, 1933-03-04, 7th, 1,000 and one") == [
        ("date", "1933-03-04"),
        ("decade", "1930"),
        ("pct", "3"),
        ("num", "7"),
        ("num", "1000"),
        ("num", "1"),
    ]


def test_an_iso_date_in_a_claim_is_not_split_into_numbers() -> None:
    assert values("1933-03-04") == [("date", "1933-03-04")]
    assert values("1933-13-04") == [("num", "1933"), ("num", "13"), ("num", "4")]


def test_scale_words_after_digits_are_not_read_again_as_words() -> None:
    assert values("5 million") == [("num", "5000000")]


def test_numbers_ending_in_s_that_are_not_decades() -> None:
    assert values("1933's budget") == [("num", "1933")]
    assert values("2.0s") == [("num", "2")]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("twenty-five", ["25"]),
        ("two three", ["2", "3"]),
        ("two and three", ["2", "3"]),
        ("twenty eleven", ["20", "11"]),
        ("thousand million", ["1000", "1000000"]),
        ("five hundred thousand", ["500000"]),
        ("one thousand and five", ["1005"]),
        ("million", ["1000000"]),
        ("twenty thirty", ["20", "30"]),
        ("one hundred two hundred", ["102", "100"]),
        ("hundred and thousand", ["100", "1000"]),
        ("thousand and hundred", ["1000", "100"]),
    ],
)
def test_spelled_runs(words: str, expected: list[str]) -> None:
    assert [v for _, v in values(words)] == expected


def test_evidence_figures() -> None:
    found = evidence_figures("On March 4, 1933, 25 percent (5 million) of twenty workers")
    assert {
        ("date", "1933-03-04"),
        ("num", "4"),
        ("num", "1933"),
        ("pct", "25"),
        ("num", "25"),
        ("num", "5000000"),
        ("num", "5"),
        ("num", "20"),
    } <= found


def test_spelled_percentage_in_evidence() -> None:
    assert ("pct", "5") in evidence_figures("five per cent")


@pytest.mark.parametrize(
    "written", ["March 14, 1963", "14 March 1963", "3/14/1963", "14/3/1963", "1963-03-14"]
)
def test_dates_compare_as_dates_in_every_common_form(written: str) -> None:
    evidence = ["It happened on March 14, 1963, at noon; 15 men came in April."]
    assert unmatched_figures(f"It happened on {written}", evidence) == ()
    wrong = written.replace("14", "15")
    assert unmatched_figures(f"It happened on {wrong}", evidence) == (wrong,)


def test_month_year_and_month_day() -> None:
    evidence = ["It happened on 14 March 1963."]
    assert unmatched_figures("It happened in March 1963", evidence) == ()
    assert unmatched_figures("It happened in April 1963", evidence) == ("April 1963",)
    assert unmatched_figures("It happened on March 14", evidence) == ()
    assert unmatched_figures("It happened on March 15", evidence) == ("March 15",)
    assert unmatched_figures("It happened in March of 1963", ["in March, 1963"]) == ()


def test_lower_case_may_and_march_are_not_months() -> None:
    assert [f.kind for f in claim_figures("we may 2020 march 5 miles")] == ["num", "num"]


def test_impossible_numeric_dates_are_numbers() -> None:
    assert [f.kind for f in claim_figures("on 13/13/1963")] == ["num", "num", "num"]


def test_the_source_date_counts_only_as_a_whole() -> None:
    stated = date_figures("1963-03-14T10:00:00Z")
    assert unmatched_figures("In 1963, in March 1963, on March 14, 1963", [], stated) == ()
    assert unmatched_figures("14 ships and 3 boats", [], stated) == ("14", "3")
    assert date_figures(None) == date_figures("1963") == frozenset()


def test_overlapping_dates_are_read_once() -> None:
    figures = claim_figures("1963-03-14 March 2020")
    assert [(f.kind, f.value) for f in figures] == [("date", "1963-03-14"), ("month", "2020-03")]
