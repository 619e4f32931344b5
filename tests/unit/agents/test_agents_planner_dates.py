"""Dates the way readers mean them: a person's first or last address, and "this year",
"recently" ... read against the archive's own span (docs/auditor.md, the planner)."""

from __future__ import annotations

import pytest
from agents_helpers import profile, sample_profile

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.ordinals import find_ordinals
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.agents.offline.recent import recent_mentions
from evidence_desk.types import Plan, TimeWindow

PLANNER = OfflinePlanner()
SAMPLE = sample_profile()


def _windows(plan: Plan) -> list[tuple[str, str, str | None]]:
    return [(sq.window.start, sq.window.end, sq.entity) for sq in plan.subquestions if sq.window]


def test_the_evaluation_sets_last_annual_address_is_washingtons_last_document() -> None:
    q = (
        "In his last annual address, which two institutions did George Washington remind "
        "Congress he had recommended founding?"
    )
    plan = PLANNER.plan(q, SAMPLE)
    # 1796-Washington-1, the sample's last Washington document
    assert _windows(plan) == [("1796-12-07", "1796-12-07", "george washington")]
    assert plan.time_windows[0].label == "George Washington, last annual address (1796-12-07)"
    assert plan.kind == "temporal"
    assert not {"last", "annual", "address"} & set(plan.key_terms)
    assert "institutions" in plan.key_terms


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How did Woodrow Wilson, in his first annual message, want voters to choose the "
            "parties' presidential nominees?",
            [("1913-12-02", "1913-12-02", "woodrow wilson")],
        ),
        (
            "What did John F. Kennedy propose in his first State of the Union?",
            [("1961-01-30", "1961-01-30", "john f. kennedy")],
        ),
        ("Lincoln's final message on emancipation", [("1864-12-06", "1864-12-06", None)]),
        ("What did Obama say in his latest speech?", [("2016-01-12", "2016-01-12", None)]),
        ("Jefferson's earliest address on the navy", [("1801-12-08", "1801-12-08", None)]),
    ],
)
def test_first_and_last_address_of_a_person(
    question: str, expected: list[tuple[str, str, str | None]]
) -> None:
    got = _windows(PLANNER.plan(question, SAMPLE))
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in expected]
    for (_, _, want), (_, _, entity) in zip(expected, got, strict=True):
        assert want is None or entity == want


def test_several_windows_first_is_the_earliest_start_last_the_latest_end() -> None:
    cleveland = (
        TimeWindow(start="1885-12-08", end="1888-12-03", label="Grover Cleveland"),
        TimeWindow(start="1893-12-04", end="1896-12-07", label="Grover Cleveland"),
    )
    entities = {"grover cleveland": cleveland, "cleveland": cleveland}
    prof = ArchiveProfile(min_date="1790-01-08", max_date="2026-02-24", entities=entities)
    first = PLANNER.plan("What did Cleveland say in his first annual message about tariffs?", prof)
    last = PLANNER.plan("What did Cleveland say in his last annual message about tariffs?", prof)
    assert _windows(first) == [("1885-12-08", "1885-12-08", "grover cleveland")]
    assert _windows(last) == [("1896-12-07", "1896-12-07", "grover cleveland")]
    assert first.key_terms == last.key_terms == ("tariffs",)


def test_a_shared_last_name_gives_each_person_their_own_day() -> None:
    plan = PLANNER.plan("What did Roosevelt say in his last address about peace?", SAMPLE)
    assert _windows(plan) == [
        ("1908-12-08", "1908-12-08", "theodore roosevelt"),
        ("1945-01-06", "1945-01-06", "franklin d. roosevelt"),
    ]


def test_in_a_comparison_the_ordinal_belongs_to_the_nearest_person() -> None:
    q = (
        "How did George Washington in 1790 and Harry Truman in his final annual message "
        "justify military readiness?"
    )
    plan = PLANNER.plan(q, SAMPLE)
    assert plan.kind == "comparison"
    assert _windows(plan) == [
        ("1790-01-08", "1790-12-31", "george washington"),
        ("1953-01-07", "1953-01-07", "harry s. truman"),
    ]
    assert "final" not in plan.key_terms
    # With Truman unknown to the profile, the ordinal is not Washington's.
    plan = PLANNER.plan(q, profile())
    assert _windows(plan) == [("1790-01-01", "1790-12-31", "george washington")]


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("What did the last State of the Union in the archive say about taxes?", "2026-02-24"),
        ("What did the first address say about the militia?", "1790-01-08"),
        ("What did the latest message say about tariffs?", "2026-02-24"),
    ],
)
def test_without_a_name_the_archive_bounds_stand_in(question: str, day: str) -> None:
    plan = PLANNER.plan(question, SAMPLE)
    assert _windows(plan) == [(day, day, None)]
    assert plan.kind == "temporal"
    assert not {"archive", "first", "last", "latest", "state", "union"} & set(plan.key_terms)


def test_an_ordinal_nobody_can_date_stays_words() -> None:
    plan = PLANNER.plan("What did the first address say about the militia?", ArchiveProfile())
    assert plan.time_windows == ()
    assert "first" in plan.key_terms
    # Someone's address the profile does not know is not the archive's first.
    plan = PLANNER.plan("What did Zachary Quill say in his first address?", SAMPLE)
    assert plan.time_windows == ()


def test_ordinals_need_an_address_noun() -> None:
    assert [o.text for o in find_ordinals("the first annual message and the last speeches")] == [
        "first annual message",
        "last speeches",
    ]
    assert find_ordinals("the first time, the last word, the final decision") == []


LAST = "2024-03-07"
THIS_YEAR = "2024 (the archive's last year)"
RELATIVE = [
    ("What was said this year about inflation?", ("2024-01-01", LAST), THIS_YEAR),
    (
        "What was said last year about inflation?",
        ("2023-01-01", "2023-12-31"),
        "2023 (the year before the archive's last)",
    ),
    (
        "What was said recently about inflation?",
        ("2023-01-01", LAST),
        "2023–2024 (the archive's last 2 years)",
    ),
    ("What was said in recent years about inflation?", ("2023-01-01", LAST), None),
    ("What has been said lately about inflation?", ("2023-01-01", LAST), None),
    (
        "What was said in the past 5 years about inflation?",
        ("2020-01-01", LAST),
        "2020–2024 (the archive's last 5 years)",
    ),
    ("What was said over the last three years about inflation?", ("2022-01-01", LAST), None),
    (
        "What was said in the last decade about inflation?",
        ("2015-01-01", LAST),
        "2015–2024 (the archive's last 10 years)",
    ),
    (
        "What was said since last year about inflation?",
        ("2023-01-01", "9999-12-31"),
        "since last year",
    ),
]


@pytest.mark.parametrize(("question", "window", "label"), RELATIVE)
def test_relative_dates_read_against_the_archives_last_date(
    question: str, window: tuple[str, str], label: str | None
) -> None:
    prof = ArchiveProfile(min_date="1790-01-08", max_date=LAST)
    plan = PLANNER.plan(question, prof)
    assert [(w.start, w.end) for w in plan.time_windows] == [window]
    assert label is None or plan.time_windows[0].label == label
    assert plan.kind == "temporal"
    assert plan.key_terms == ("inflation",)


def test_relative_dates_without_a_last_date_stay_unresolved() -> None:
    for question, _, _ in RELATIVE:
        plan = PLANNER.plan(question, ArchiveProfile())
        assert plan.time_windows == (), question
    assert "recently" in PLANNER.plan("What was said recently?", ArchiveProfile()).key_terms


def test_someones_own_years_are_not_the_archives() -> None:
    assert recent_mentions("What did he do in his last year in office?", LAST) == []
    assert recent_mentions("the last 5 years of his presidency", LAST) == []
    assert recent_mentions("the last year of the war", LAST) == []


def test_a_person_and_a_relative_date_intersect() -> None:
    plan = PLANNER.plan("What did Biden say last year about junk fees?", SAMPLE)
    (sq,) = plan.subquestions
    assert sq.window is not None and (sq.window.start, sq.window.end) == (
        "2025-01-01",
        "2024-03-07",
    )  # an empty window: the sample holds no Biden address from 2025
